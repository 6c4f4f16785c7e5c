/**
 * A light, case-insensitive header map used by {@linkcode Request} and
 * {@linkcode Response}.
 *
 * @module
 */

/** Anything a header map can be built from. */
export type HeadersInit =
  | HttpHeaders
  | Iterable<readonly [string, string]>
  | Record<string, string>;

// RFC 9110 section 5.1: field-name = token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// RFC 9110 section 5.5: CR, LF and NUL are never allowed in a field value;
// refusing them here makes response splitting impossible.
const FORBIDDEN_VALUE = /[\r\n\0]/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

let trustedNames: string[] | undefined;
let trustedValues: string[] | undefined;
let namesOf: (headers: HttpHeaders) => string[];
let valuesOf: (headers: HttpHeaders) => string[];
let share: (headers: HttpHeaders) => HttpHeaders;

/**
 * Wraps parsed fields that something else keeps too (the HTTP/1.1 parser's
 * last head): the map copies them before its first change. Internal to the
 * package.
 *
 * @param names Lower-case field names, never changed by the caller.
 * @param values Field values, parallel to `names`.
 * @returns A map that reads the arrays and copies them to write.
 */
export function sharedHeaders(names: string[], values: string[]): HttpHeaders {
  return share(HttpHeaders.fromTrusted(names, values));
}

/**
 * The internal array of lower-case names of a header map, for the protocol
 * encoders (no copy, no allocation). Internal to the package; never mutate.
 *
 * @param headers The map.
 * @returns The names, parallel to {@linkcode headerValues}.
 */
export function headerNames(headers: HttpHeaders): readonly string[] {
  return namesOf(headers);
}

/**
 * The internal array of values of a header map. Internal to the package.
 *
 * @param headers The map.
 * @returns The values, parallel to {@linkcode headerNames}.
 */
export function headerValues(headers: HttpHeaders): readonly string[] {
  return valuesOf(headers);
}

/**
 * An ordered, case-insensitive multimap of HTTP fields. Names are stored in
 * lower case, which is also how HTTP/2 sends them (RFC 9113 section 8.2.1).
 *
 * It is deliberately smaller and faster than the web `Headers` class: a
 * response usually carries a handful of fields, so two parallel arrays and a
 * linear scan beat a hash map.
 *
 * Where it shares a method with `Headers` it follows the same contract:
 * `get` returns `null` for an absent field and joins repeated fields with
 * `", "`, `forEach` passes `(value, name, headers)`, `getSetCookie` returns
 * each `Set-Cookie` field on its own, and `set` / `append` strip leading and
 * trailing whitespace from values. Unlike `Headers`, iteration and `forEach`
 * visit the fields as stored (insertion order, repeated names not combined),
 * `set` / `append` return the map and `delete` returns whether a field was
 * removed.
 *
 * @example Set, append and read fields
 * ```ts
 * import { HttpHeaders } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const headers = new HttpHeaders({ "Content-Type": "text/plain" });
 * headers.append("Set-Cookie", "a=1");
 * headers.append("set-cookie", "b=2");
 * assert.equal(headers.get("content-type"), "text/plain");
 * assert.deepEqual(headers.getAll("Set-Cookie"), ["a=1", "b=2"]);
 * ```
 */
export class HttpHeaders implements Iterable<[string, string]> {
  #names: string[];
  #values: string[];
  /** The arrays belong to someone else too: copy them before a change. */
  #shared = false;

  static {
    namesOf = (h) => h.#names;
    valuesOf = (h) => h.#values;
    share = (h) => {
      h.#shared = true;
      return h;
    };
  }

  /**
   * Creates a header map.
   *
   * @param init Fields to copy: another map, `[name, value]` pairs or a record.
   */
  constructor(init?: HeadersInit) {
    if (trustedNames !== undefined) {
      this.#names = trustedNames;
      this.#values = trustedValues!;
      trustedNames = trustedValues = undefined;
      return;
    }
    this.#names = [];
    this.#values = [];
    if (init === undefined) return;
    if (init instanceof HttpHeaders) {
      this.#names = init.#names.slice();
      this.#values = init.#values.slice();
    } else if (Symbol.iterator in init) {
      for (const [name, value] of init as Iterable<[string, string]>) {
        this.append(name, value);
      }
    } else {
      for (const name in init) this.append(name, init[name]!);
    }
  }

  /**
   * Wraps already validated, lower-case fields without copying them. Used by
   * the protocol codecs, which validate while parsing.
   *
   * @param names Lower-case field names.
   * @param values Field values, parallel to `names`.
   * @returns A header map that owns both arrays.
   *
   * @example Wrap parsed fields
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const headers = HttpHeaders.fromTrusted(["host"], ["example.com"]);
   * assert.equal(headers.get("Host"), "example.com");
   * ```
   */
  static fromTrusted(names: string[], values: string[]): HttpHeaders {
    trustedNames = names;
    trustedValues = values;
    return new HttpHeaders();
  }

  /** The number of fields, counting repeated names separately. */
  get size(): number {
    return this.#names.length;
  }

  /**
   * Returns the value of a field; repeated fields are joined with `", "`
   * (RFC 9110 section 5.3).
   *
   * @param name The field name, in any case.
   * @returns The value, or `null` when the field is absent (as `Headers.get`).
   *
   * @example Read a field
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const headers = new HttpHeaders([["accept", "a"], ["Accept", "b"]]);
   * assert.equal(headers.get("ACCEPT"), "a, b");
   * assert.equal(headers.get("x-missing"), null);
   * ```
   */
  get(name: string): string | null {
    const key = name.toLowerCase();
    const names = this.#names;
    let found: string | null = null;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === key) {
        found = found === null
          ? this.#values[i]!
          : `${found}, ${this.#values[i]}`;
      }
    }
    return found;
  }

  /**
   * Returns every value of a field, in order.
   *
   * @param name The field name, in any case.
   * @returns The values; empty when the field is absent.
   *
   * @example Read repeated fields
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const headers = new HttpHeaders([["set-cookie", "a=1"], ["set-cookie", "b=2"]]);
   * assert.deepEqual(headers.getAll("set-cookie"), ["a=1", "b=2"]);
   * ```
   */
  getAll(name: string): string[] {
    const key = name.toLowerCase();
    const out: string[] = [];
    for (let i = 0; i < this.#names.length; i++) {
      if (this.#names[i] === key) out.push(this.#values[i]!);
    }
    return out;
  }

  /**
   * Returns every `Set-Cookie` field, in order, as `Headers.getSetCookie`
   * does: `Set-Cookie` is the one field whose values cannot be joined with
   * `", "` (RFC 6265 section 3), so read it with this rather than `get`.
   *
   * @returns The values; empty when there is none.
   *
   * @example Read the cookies a response sets
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const headers = new HttpHeaders()
   *   .append("Set-Cookie", "a=1; Path=/")
   *   .append("Set-Cookie", "b=2; Expires=Wed, 21 Oct 2015 07:28:00 GMT");
   * assert.deepEqual(headers.getSetCookie(), [
   *   "a=1; Path=/",
   *   "b=2; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
   * ]);
   * ```
   */
  getSetCookie(): string[] {
    return this.getAll("set-cookie");
  }

  /**
   * Tells whether a field is present.
   *
   * @param name The field name, in any case.
   * @returns `true` when at least one field has this name.
   *
   * @example Test for a field
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(new HttpHeaders({ ETag: '"x"' }).has("etag"), true);
   * ```
   */
  has(name: string): boolean {
    return this.#names.indexOf(name.toLowerCase()) !== -1;
  }

  /**
   * Replaces every field of this name with one field.
   *
   * @param name The field name; must be a token (RFC 9110 section 5.1).
   * @param value The value; leading and trailing whitespace is removed (as
   * `Headers.set` does), then CR, LF and NUL are refused.
   * @returns This map, for chaining.
   * @throws {TypeError} When the name or the value is invalid.
   *
   * @example Replace a field
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const headers = new HttpHeaders({ vary: "Origin" }).set("Vary", "Accept");
   * assert.equal(headers.get("vary"), "Accept");
   * ```
   */
  set(name: string, value: string): this {
    const key = checkName(name);
    value = normalizeValue(name, value);
    if (this.#shared) this.#own();
    const i = this.#names.indexOf(key);
    if (i === -1) {
      this.#names.push(key);
      this.#values.push(value);
      return this;
    }
    this.#values[i] = value;
    this.#removeFrom(key, i + 1);
    return this;
  }

  /**
   * Adds a field, keeping existing fields of the same name.
   *
   * @param name The field name; must be a token (RFC 9110 section 5.1).
   * @param value The value; leading and trailing whitespace is removed (as
   * `Headers.append` does), then CR, LF and NUL are refused.
   * @returns This map, for chaining.
   * @throws {TypeError} When the name or the value is invalid.
   *
   * @example Add a field
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const headers = new HttpHeaders().append("vary", "Origin").append("vary", "Accept");
   * assert.equal(headers.get("vary"), "Origin, Accept");
   * ```
   */
  append(name: string, value: string): this {
    const key = checkName(name);
    value = normalizeValue(name, value);
    if (this.#shared) this.#own();
    this.#names.push(key);
    this.#values.push(value);
    return this;
  }

  /**
   * Removes every field of this name.
   *
   * @param name The field name, in any case.
   * @returns `true` when a field was removed.
   *
   * @example Remove a field
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const headers = new HttpHeaders({ etag: '"x"' });
   * assert.equal(headers.delete("ETag"), true);
   * assert.equal(headers.has("etag"), false);
   * ```
   */
  delete(name: string): boolean {
    const before = this.#names.length;
    this.#removeFrom(name.toLowerCase(), 0);
    return this.#names.length !== before;
  }

  /**
   * Iterates over `[name, value]` pairs in insertion order, names in lower case.
   * Unlike `Headers`, the pairs are not sorted by name and repeated fields are
   * not combined: each field is its own pair.
   *
   * @returns An iterator of pairs.
   *
   * @example Iterate
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.deepEqual([...new HttpHeaders({ A: "1" })], [["a", "1"]]);
   * ```
   */
  *[Symbol.iterator](): IterableIterator<[string, string]> {
    for (let i = 0; i < this.#names.length; i++) {
      yield [this.#names[i]!, this.#values[i]!];
    }
  }

  /**
   * Calls `fn` for each field in order, without allocating pairs. The
   * arguments come in the order `Headers.forEach` uses: value first, then
   * the lower-case name. Unlike `Headers`, fields are visited as stored
   * (insertion order, repeated names not combined).
   *
   * @param fn Receives the value, the lower-case name and this map.
   * @param thisArg The `this` of each call of `fn`.
   *
   * @example Visit each field
   * ```ts
   * import { HttpHeaders } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const seen: string[] = [];
   * new HttpHeaders({ a: "1", b: "2" }).forEach((value, name) => seen.push(`${name}=${value}`));
   * assert.deepEqual(seen, ["a=1", "b=2"]);
   * ```
   */
  forEach(
    fn: (value: string, name: string, headers: HttpHeaders) => void,
    thisArg?: unknown,
  ): void {
    const names = this.#names;
    const values = this.#values;
    for (let i = 0; i < names.length; i++) {
      fn.call(thisArg, values[i]!, names[i]!, this);
    }
  }

  /** Takes copies of shared arrays, before a change. */
  #own(): void {
    this.#names = this.#names.slice();
    this.#values = this.#values.slice();
    this.#shared = false;
  }

  #removeFrom(key: string, start: number): void {
    if (this.#shared) {
      if (this.#names.indexOf(key, start) === -1) return;
      this.#own();
    }
    const names = this.#names;
    let w = start;
    for (let r = start; r < names.length; r++) {
      if (names[r] !== key) {
        names[w] = names[r]!;
        this.#values[w] = this.#values[r]!;
        w++;
      }
    }
    names.length = w;
    this.#values.length = w;
  }
}

function checkName(name: string): string {
  if (!TOKEN.test(name)) {
    throw new TypeError(`Cannot use header name "${name}": not a token`);
  }
  return name.toLowerCase();
}

// Fetch's "normalize": strip leading and trailing HTTP whitespace (HTAB, LF,
// CR, SP), as `Headers.set` and `Headers.append` do, before validating.
function normalizeValue(name: string, value: string): string {
  const last = value.length - 1;
  if (
    last >= 0 && (isHttpWhitespace(value.charCodeAt(0)) ||
      isHttpWhitespace(value.charCodeAt(last)))
  ) {
    value = value.replace(EDGE_WHITESPACE, "");
  }
  if (FORBIDDEN_VALUE.test(value)) {
    throw new TypeError(
      `Cannot use the value of header "${name}": it contains CR, LF or NUL`,
    );
  }
  return value;
}

function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}
