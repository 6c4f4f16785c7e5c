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
  | {
    readonly kind: "pattern";
    /** The shape, without parameter names: equal keys cannot be told apart. */
    readonly key: string;
    /** Matches a whole decoded segment; group `$i` captures parameter `i`. */
    readonly regexp: RegExp;
    /** The parameters of the segment, in order. */
    readonly names: readonly string[];
  }
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
  /**
   * Whether the last segment is an optional parameter (`/:name?`): the
   * pattern then also matches without it.
   */
  readonly optional: boolean;
}

// RFC 3986 section 3.3: a segment is pchar*; a parameter name is an identifier.
const PARAM_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*/;
const SPECIAL = /[.*+?^${}()|[\]\\]/g;
const COLON = 58;
const OPEN_BRACE = 123;
const QUESTION_MARK = 63;

/** A segment written with an OpenAPI-style parameter, `{id}`. */
const OPENAPI_PARAM = /\{[A-Za-z_][A-Za-z0-9_]*\}/;
const OPENAPI_PARAMS = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Parses a route pattern such as `/users/:id/files/*`.
 *
 * A segment is static text, a `:name` parameter, or text and parameters
 * mixed (`/:from-:to`, `/:file.:ext`, `/v:major`), where each parameter
 * takes the shortest text up to the literal that follows it. A parameter may
 * carry a regular-expression constraint on its decoded value
 * (`/:id{[0-9]+}`), which must match it whole; the last segment may be an
 * optional parameter (`/:tab?`). `::` is a literal colon. The final segment
 * may be `*`.
 *
 * @param pattern The pattern.
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
  let optional = false;
  const parts = normalized === "/" ? [] : normalized.slice(1).split("/");
  const fail = (why: string): never => {
    throw new TypeError(`Cannot add route "${pattern}": ${why}`);
  };
  const addName = (name: string): void => {
    if (names.includes(name)) fail(`parameter "${name}" appears twice`);
    names.push(name);
  };
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "*") {
      if (i !== parts.length - 1) fail(`"*" must be the last segment`);
      segments.push({ kind: "wildcard" });
      names.push("*");
      plainStatic = false;
      continue;
    }
    if (part === "") fail("empty segment");
    if (!part.includes(":")) {
      // `{id}` is OpenAPI's and Express 5's spelling of a parameter; as a
      // literal it could never match ("{" is not allowed in a path
      // unencoded, RFC 3986 section 3.3), so it is a mistake to point out.
      if (OPENAPI_PARAM.test(part)) {
        fail(
          `"{name}" is not a parameter here; did you mean "${
            normalized.replace(OPENAPI_PARAMS, ":$1")
          }"?`,
        );
      }
      segments.push({ kind: "static", value: decodeStatic(part, fail) });
      if (part.includes("%")) plainStatic = false;
      continue;
    }
    const pieces = splitSegment(part, fail);
    plainStatic = false;
    if (pieces.length === 1 && typeof pieces[0] === "string") {
      // Only escaped colons: a static segment after all.
      segments.push({ kind: "static", value: decodeStatic(pieces[0], fail) });
      continue;
    }
    for (const piece of pieces) {
      if (typeof piece === "string" || !piece.optional) continue;
      if (i !== parts.length - 1 || pieces.length !== 1) {
        fail(`only a whole last segment can be optional ("/:${piece.name}?")`);
      }
      optional = true;
    }
    if (
      pieces.length === 1 && typeof pieces[0] !== "string" &&
      pieces[0]!.constraint === undefined
    ) {
      addName(pieces[0]!.name);
      segments.push({ kind: "param", name: pieces[0]!.name });
      continue;
    }
    const segment = patternSegment(pieces, fail);
    for (const name of segment.names) addName(name);
    segments.push(segment);
  }
  return { pattern: normalized, segments, names, plainStatic, optional };
}

/** A parameter inside a segment, as written. */
interface ParamPiece {
  name: string;
  constraint: string | undefined;
  optional: boolean;
}

/** Splits a segment into literal text (still encoded) and parameters. */
function splitSegment(
  part: string,
  fail: (why: string) => never,
): (string | ParamPiece)[] {
  const pieces: (string | ParamPiece)[] = [];
  let text = "";
  let i = 0;
  while (i < part.length) {
    const c = part.charCodeAt(i);
    if (c !== COLON) {
      text += part[i];
      i++;
      continue;
    }
    if (part.charCodeAt(i + 1) === COLON) {
      text += ":";
      i += 2;
      continue;
    }
    const name = PARAM_NAME.exec(part.slice(i + 1))?.[0];
    if (name === undefined) {
      fail(`invalid parameter name after ":" in "${part}"`);
    }
    if (text === "" && typeof pieces[pieces.length - 1] === "object") {
      fail(
        `parameters ":${
          (pieces[pieces.length - 1] as ParamPiece).name
        }" and ":${name}" need text between them`,
      );
    }
    if (text !== "") pieces.push(text);
    text = "";
    i += 1 + name.length;
    let constraint: string | undefined;
    if (part.charCodeAt(i) === OPEN_BRACE) {
      const close = closingBrace(part, i);
      if (close === -1) {
        fail(`unclosed "{" after ":${name}" (a constraint cannot hold "/")`);
      }
      constraint = part.slice(i + 1, close);
      if (constraint === "") fail(`empty constraint after ":${name}"`);
      i = close + 1;
    }
    let optional = false;
    if (part.charCodeAt(i) === QUESTION_MARK) {
      optional = true;
      i++;
    }
    pieces.push({ name, constraint, optional });
  }
  if (text !== "") pieces.push(text);
  return pieces;
}

/** The index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(part: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < part.length; i++) {
    const c = part[i];
    if (c === "\\") {
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
    } else if (c === "{") {
      depth++;
    } else if (c === "}" && --depth === 0) {
      return i;
    }
  }
  return -1;
}

/** Compiles a constrained or mixed segment into one anchored regexp. */
function patternSegment(
  pieces: readonly (string | ParamPiece)[],
  fail: (why: string) => never,
): Extract<PatternSegment, { kind: "pattern" }> {
  let source = "^";
  let key = "";
  const names: string[] = [];
  for (const piece of pieces) {
    if (typeof piece === "string") {
      const text = decodeStatic(piece, fail);
      source += text.replace(SPECIAL, "\\$&");
      key += text.replace(SPECIAL, "\\$&");
      continue;
    }
    const inner = piece.constraint ?? ".+?";
    try {
      new RegExp(inner);
    } catch {
      fail(`invalid constraint "{${piece.constraint}}" of ":${piece.name}"`);
    }
    source += `(?<$${names.length}>${inner})`;
    key += `(${inner})`;
    names.push(piece.name);
  }
  source += "$";
  let regexp: RegExp;
  try {
    regexp = new RegExp(source, "d");
  } catch {
    // A constraint with a group named like ours, or one that only compiles alone.
    return fail(`cannot compile the constraints of "${names.join('", "')}"`);
  }
  return { kind: "pattern", key, regexp, names };
}

function decodeStatic(text: string, fail: (why: string) => never): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return fail("malformed percent-encoding");
  }
}

/**
 * The pattern without its last segment: the shorter shape of a pattern whose
 * last parameter is optional.
 *
 * @param parsed A pattern with at least one segment.
 * @returns The pattern without the last segment and its parameters.
 */
export function withoutLast(parsed: ParsedPattern): ParsedPattern {
  const segments = parsed.segments.slice(0, -1);
  const last = parsed.segments[parsed.segments.length - 1];
  const dropped = last?.kind === "pattern" ? last.names.length : 1;
  const slash = parsed.pattern.lastIndexOf("/");
  const pattern = slash === 0 ? "/" : parsed.pattern.slice(0, slash);
  return {
    pattern,
    segments,
    names: parsed.names.slice(0, parsed.names.length - dropped),
    plainStatic: segments.every((s) => s.kind === "static") &&
      !/[%:]/.test(pattern),
    optional: false,
  };
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
