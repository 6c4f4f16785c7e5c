/**
 * {@linkcode Tag}: a name and a value attached to a metric.
 *
 * @module
 */
import { checkTagName } from "./internal/names.ts";

/**
 * A tag: a name matching `[a-zA-Z_][a-zA-Z0-9_]*` and any string value.
 *
 * @example Create a tag
 * ```ts
 * import { Tag } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const tag = new Tag("colour", "red");
 * assert.equal(tag.toString(), 'colour="red"');
 * ```
 */
export class Tag {
  /** The tag name. */
  readonly name: string;
  /** The tag value, any string; escaped only when rendered. */
  readonly value: string;

  /**
   * Creates a tag, checking the name.
   *
   * @param name A name matching `[a-zA-Z_][a-zA-Z0-9_]*`.
   * @param value Any string.
   * @throws {InvalidNameError} When the name is invalid.
   * @throws {TypeError} When the value is not a string.
   */
  constructor(name: string, value: string) {
    checkTagName(name);
    if (typeof value !== "string") {
      throw new TypeError(`Cannot create tag "${name}": value is not a string`);
    }
    this.name = name;
    this.value = value;
  }

  /**
   * Returns `name="value"`.
   *
   * @returns The tag as MicroProfile prints it.
   */
  toString(): string {
    return `${this.name}="${this.value}"`;
  }
}

/**
 * Tags given to a registry call: a plain object (`{ number: "one" }`) or a
 * list of {@linkcode Tag}s. With a list, the last value of a repeated name
 * wins.
 */
export type TagsInput = Readonly<Record<string, string>> | readonly Tag[];
