/**
 * A value of the YAML configuration file with its place: what the readers
 * of the settings' value types get. Aliases are resolved lazily, item by
 * item, and a mistake inside an alias points where the alias is used.
 *
 * @module
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Node,
  type Scalar,
} from "yaml";
import { type SourcePosition, UsageError } from "../errors.ts";

/** Turns an offset in the file into a position. */
export type Locate = (offset: number) => SourcePosition;

/** What a {@linkcode YamlNode} holds. */
export type YamlKind = "nothing" | "scalar" | "list" | "map" | "other";

/** One value of the file, with its position. */
export class YamlNode {
  #node: Node | null;
  #doc: Document;
  #locate: Locate;
  /** The alias this value was reached through, if any. */
  #site: Node | null;

  /**
   * Wraps a node of `doc`, resolving it when it is an alias.
   *
   * @param node The node, or `null` for an empty value.
   * @param context The document and the offset-to-position function.
   * @param site The alias it was reached through (for positions).
   */
  constructor(
    node: Node | null | undefined,
    context: { doc: Document; locate: Locate },
    site: Node | null = null,
  ) {
    this.#doc = context.doc;
    this.#locate = context.locate;
    const alias = isAlias(node) ? node : null;
    this.#site = site ?? alias;
    this.#node = alias
      ? (alias.resolve(context.doc) as Node | undefined) ?? null
      : node ?? null;
  }

  /** What kind of value it is. */
  get kind(): YamlKind {
    const node = this.#node;
    if (node === null || (isScalar(node) && node.value === null)) {
      return "nothing";
    }
    if (isScalar(node)) return "scalar";
    if (isSeq(node)) return "list";
    if (isMap(node)) return "map";
    return "other";
  }

  /** The value of a scalar (`undefined` for anything else). */
  get value(): unknown {
    return isScalar(this.#node) ? this.#node.value : undefined;
  }

  /** Where it is written (where the alias is, for a value reached through one). */
  get position(): SourcePosition {
    return this.#locate((this.#site ?? this.#node)?.range?.[0] ?? 0);
  }

  /**
   * The text of a scalar: a string as it is, a number or boolean as
   * written (`0x1F90` stays `0x1F90`); `undefined` for anything else.
   */
  get text(): string | undefined {
    const node = this.#node;
    if (!isScalar(node)) return undefined;
    if (typeof node.value === "string") return node.value;
    if (typeof node.value === "number" || typeof node.value === "boolean") {
      const source = (node as Scalar & { source?: string }).source;
      return typeof source === "string" ? source : String(node.value);
    }
    return undefined;
  }

  /** The items of a list (none for an empty value). */
  items(): YamlNode[] {
    if (!isSeq(this.#node)) return [];
    return this.#node.items.map((item) => this.#child(item as Node | null));
  }

  /** The key and value pairs of a map. */
  entries(): { key: YamlNode; value: YamlNode }[] {
    if (!isMap(this.#node)) return [];
    return this.#node.items.map((pair) => ({
      key: this.#child(pair.key as Node | null),
      value: this.#child(pair.value as Node | null),
    }));
  }

  /** How messages name the value: `"abc"`, `number 80`, `a list`. */
  describe(): string {
    switch (this.kind) {
      case "nothing":
        return "nothing";
      case "list":
        return "a list";
      case "map":
        return "a map";
      case "scalar": {
        const value = this.value;
        if (typeof value === "string") {
          // Quoted and escaped: a line break stays on the message's line.
          return JSON.stringify(
            value.length > 40 ? value.slice(0, 40) + "…" : value,
          );
        }
        return `${typeof value} ${String(value)}`;
      }
      default:
        return "an unsupported value";
    }
  }

  /**
   * The text of a scalar on one line; a number or boolean as written.
   *
   * @param name The key, for the message.
   * @param expected What the key takes, for the message.
   * @returns The text.
   * @throws {UsageError} For a list, a map, nothing, an empty or a
   * multi-line text.
   */
  line(name: string, expected: string): string {
    const text = this.text;
    if (text === undefined || text === "" || /[\r\n]/.test(text)) {
      throw this.wrongType(name, `${expected} on one line`);
    }
    return text;
  }

  /**
   * A mistake about this value: `Cannot use KEY: expected X, got Y`.
   *
   * @param name The key.
   * @param expected What the key takes.
   * @returns The error, placed here.
   */
  wrongType(name: string, expected: string): UsageError {
    return new UsageError(
      "wrong-type",
      `Cannot use ${name}: expected ${expected}, got ${this.describe()}`,
      { position: this.position },
    );
  }

  /**
   * Runs a check written for flags and environment variables; its mistake
   * is placed here.
   *
   * @param check The check.
   * @returns What it returns.
   */
  at<T>(check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof UsageError) || error.position) throw error;
      throw new UsageError(error.code, error.message, {
        position: this.position,
        cause: error.cause,
      });
    }
  }

  #child(node: Node | null): YamlNode {
    return new YamlNode(
      node,
      { doc: this.#doc, locate: this.#locate },
      this.#site,
    );
  }
}
