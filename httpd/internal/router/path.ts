/**
 * Route patterns and request paths: parsing patterns into segments, joining
 * group prefixes, percent-decoding request segments.
 *
 * @module
 */

/** One segment of a route pattern. */
export type PatternSegment =
  | { readonly kind: "static"; readonly value: string }
  | { readonly kind: "param"; readonly name: string }
  | { readonly kind: "wildcard" };

/** A validated route pattern. */
export interface ParsedPattern {
  /** The pattern normalized: leading `/`, no trailing `/` (except the root). */
  readonly pattern: string;
  /** The segments, with static segments percent-decoded. */
  readonly segments: readonly PatternSegment[];
  /** Parameter names in order; the wildcard is named `*`. */
  readonly names: readonly string[];
  /** Whether every segment is static, and none needed decoding. */
  readonly plainStatic: boolean;
}

// RFC 3986 section 3.3: a segment is pchar*; a parameter name is an identifier.
const PARAM_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Parses a route pattern such as `/users/:id/files/*`.
 *
 * @param pattern The pattern: static segments, `:name` segments and a final `*`.
 * @returns The parsed pattern.
 * @throws {TypeError} When the pattern is malformed.
 */
export function parsePattern(pattern: string): ParsedPattern {
  if (typeof pattern !== "string" || pattern.charCodeAt(0) !== 47 /* / */) {
    throw new TypeError(
      `Cannot add route "${pattern}": a pattern starts with "/"`,
    );
  }
  const normalized = trimTrailingSlash(pattern);
  const segments: PatternSegment[] = [];
  const names: string[] = [];
  let plainStatic = true;
  const parts = normalized === "/" ? [] : normalized.slice(1).split("/");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "*") {
      if (i !== parts.length - 1) {
        throw new TypeError(
          `Cannot add route "${pattern}": "*" must be the last segment`,
        );
      }
      segments.push({ kind: "wildcard" });
      names.push("*");
      plainStatic = false;
    } else if (part.charCodeAt(0) === 58 /* : */) {
      const name = part.slice(1);
      if (!PARAM_NAME.test(name)) {
        throw new TypeError(
          `Cannot add route "${pattern}": invalid parameter name "${name}"`,
        );
      }
      if (names.includes(name)) {
        throw new TypeError(
          `Cannot add route "${pattern}": parameter "${name}" appears twice`,
        );
      }
      segments.push({ kind: "param", name });
      names.push(name);
      plainStatic = false;
    } else if (part === "") {
      throw new TypeError(`Cannot add route "${pattern}": empty segment`);
    } else {
      let value = part;
      if (part.includes("%")) {
        plainStatic = false;
        try {
          value = decodeURIComponent(part);
        } catch {
          throw new TypeError(
            `Cannot add route "${pattern}": malformed percent-encoding`,
          );
        }
      }
      segments.push({ kind: "static", value });
    }
  }
  return { pattern: normalized, segments, names, plainStatic };
}

/**
 * Joins a group prefix and a route path: `/api` + `/users/` = `/api/users`.
 *
 * @param prefix The prefix, starting with `/`.
 * @param path The path, starting with `/`.
 * @returns The joined pattern.
 */
export function joinPaths(prefix: string, path: string): string {
  if (typeof path !== "string" || path.charCodeAt(0) !== 47 /* / */) {
    throw new TypeError(
      `Cannot add route "${path}": a pattern starts with "/"`,
    );
  }
  const head = trimTrailingSlash(prefix);
  if (head === "/") return path;
  return path === "/" ? head : head + path;
}

/** Removes one trailing `/` unless the path is the root. */
export function trimTrailingSlash(path: string): string {
  return path.length > 1 && path.charCodeAt(path.length - 1) === 47
    ? path.slice(0, -1)
    : path;
}

/** Thrown by {@linkcode splitDecoded} for a malformed `%` escape. */
export class MalformedPathError extends URIError {
  /** Creates the error. */
  constructor() {
    super("Cannot decode path: malformed percent-encoding");
    this.name = "MalformedPathError";
  }
}

/**
 * Splits an origin-form path into percent-decoded segments, so that `%2F`
 * stays inside its segment. One trailing `/` is dropped (it is transparent).
 *
 * @param path The raw path, starting with `/`.
 * @returns The decoded segments (none for `/`).
 * @throws {MalformedPathError} For a malformed escape such as `%zz` or `%C3`.
 */
export function splitDecoded(path: string): string[] {
  const trimmed = trimTrailingSlash(path);
  if (trimmed === "/") return [];
  const parts = trimmed.slice(1).split("/");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.includes("%")) {
      try {
        parts[i] = decodeURIComponent(part);
      } catch {
        throw new MalformedPathError();
      }
    }
  }
  return parts;
}
