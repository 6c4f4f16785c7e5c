/**
 * {@linkcode MetricID}: a metric's name and tags.
 *
 * @module
 */
import { Tag, type TagsInput } from "./tag.ts";
import { compareStrings, idKey, normalizeTags } from "./internal/tags.ts";

/**
 * A metric's identity: its name and its tags, sorted by tag name. Global tags
 * (`mp.metrics.tags`) are never part of a MetricID.
 *
 * @example Identify a tagged counter
 * ```ts
 * import { MetricID } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const id = new MetricID("hits", { path: "/", method: "GET" });
 * assert.equal(id.getTagsAsString(), 'method="GET",path="/"');
 * assert.ok(id.equals(new MetricID("hits", { method: "GET", path: "/" })));
 * ```
 */
export class MetricID {
  /** The metric name. */
  readonly name: string;
  /** The tags as `[name, value]` pairs sorted by name. */
  readonly tags: readonly (readonly [string, string])[];
  #key: string | undefined;

  /**
   * Creates an ID.
   *
   * @param name The metric name.
   * @param tags The tags; the last value of a repeated name wins.
   * @throws {InvalidNameError} When a tag name is invalid.
   */
  constructor(name: string, tags?: TagsInput | null) {
    if (typeof name !== "string") {
      throw new TypeError("Cannot create MetricID: name is not a string");
    }
    this.name = name;
    this.tags = Object.freeze(normalizeTags(tags));
  }

  /**
   * Returns the tags as a plain object.
   *
   * @returns A fresh object mapping tag names to values.
   */
  getTags(): Record<string, string> {
    return Object.fromEntries(this.tags);
  }

  /**
   * Returns the tags as {@linkcode Tag} objects, sorted by name.
   *
   * @returns A fresh array of tags.
   */
  getTagsAsArray(): Tag[] {
    return this.tags.map(([n, v]) => new Tag(n, v));
  }

  /**
   * Returns the tags as `name="value"` joined by commas.
   *
   * @returns The tags as MicroProfile prints them.
   */
  getTagsAsString(): string {
    return this.tags.map(([n, v]) => `${n}="${v}"`).join(",");
  }

  /**
   * A string equal for equal IDs and different otherwise, usable as a map key.
   *
   * @returns The canonical key.
   */
  get key(): string {
    if (this.#key === undefined) this.#key = idKey(this.name, this.tags);
    return this.#key;
  }

  /**
   * Tells whether two IDs have the same name and tags.
   *
   * @param other The ID to compare with.
   * @returns `true` when they are equal.
   */
  equals(other: MetricID): boolean {
    return other instanceof MetricID && other.key === this.key;
  }

  /**
   * Orders IDs by name, then number of tags, then tags in name order.
   *
   * @param other The ID to compare with.
   * @returns A negative number, zero or a positive number.
   */
  compareTo(other: MetricID): number {
    const byName = compareStrings(this.name, other.name);
    if (byName !== 0) return byName;
    if (this.tags.length !== other.tags.length) {
      return this.tags.length - other.tags.length;
    }
    for (let i = 0; i < this.tags.length; i++) {
      // Both lists have this length (checked above).
      const a = this.tags[i]!, b = other.tags[i]!;
      const c = compareStrings(a[0], b[0]) || compareStrings(a[1], b[1]);
      if (c !== 0) return c;
    }
    return 0;
  }

  /**
   * Returns `MetricID{name='N', tags=[k="v",...]}` as MicroProfile does.
   *
   * @returns The printable form.
   */
  toString(): string {
    return `MetricID{name='${this.name}', tags=[${this.getTagsAsString()}]}`;
  }
}
