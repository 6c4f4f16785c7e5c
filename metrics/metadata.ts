/**
 * Metric metadata: name, description and unit.
 *
 * @module
 */
import { MetricUnits } from "./units.ts";

/** Fields of a {@linkcode Metadata}. */
export interface MetadataInit {
  /** The metric name; any non-empty string. */
  name: string;
  /** A human-readable description; empty when absent. */
  description?: string;
  /** The unit; `"none"` when absent. See {@linkcode MetricUnits}. */
  unit?: string;
}

/**
 * The metadata of a metric name. It must not change over the lifetime of the
 * process: registering a name again with other metadata is an error.
 *
 * @example Compare metadata
 * ```ts
 * import { Metadata } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const a = new Metadata({ name: "queue.size", unit: "none" });
 * const b = new Metadata({ name: "queue.size", description: "" });
 * assert.ok(a.equals(b));
 * ```
 */
export class Metadata {
  /** The metric name. */
  readonly name: string;
  /** The description, `""` when absent. */
  readonly description: string;
  /** The unit, `"none"` when absent. */
  readonly unit: string;

  /**
   * Creates metadata.
   *
   * @param init The name and the optional description and unit.
   * @throws {TypeError} When the name is missing.
   * @throws {RangeError} When the name is empty.
   */
  constructor(init: MetadataInit) {
    if (init == null || typeof init.name !== "string") {
      throw new TypeError("Cannot create metadata: name is required");
    }
    if (init.name === "") {
      throw new RangeError("Cannot create metadata: name must not be empty");
    }
    this.name = init.name;
    this.description = init.description ?? "";
    this.unit = init.unit === undefined || init.unit === ""
      ? MetricUnits.NONE
      : init.unit;
  }

  /**
   * Tells whether two metadata have the same name, description and unit.
   *
   * @param other The metadata to compare with.
   * @returns `true` when equal.
   */
  equals(other: Metadata): boolean {
    return other instanceof Metadata && other.name === this.name &&
      other.description === this.description && other.unit === this.unit;
  }

  /**
   * Returns a copy with another name.
   *
   * @param name The new name.
   * @returns New metadata with the same description and unit.
   */
  withName(name: string): Metadata {
    return new Metadata({
      name,
      description: this.description,
      unit: this.unit,
    });
  }
}
