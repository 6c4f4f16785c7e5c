/**
 * A segment tree of routes for one method. Each node has static children by
 * exact segment, pattern children (a constrained parameter such as
 * `:id{[0-9]+}`, or text and parameters mixed such as `:from-:to`), at most
 * one plain parameter child and at most one tail wildcard; a lookup tries
 * them in that order and backtracks, so static segments win over patterns,
 * patterns over plain parameters and parameters over wildcards whatever the
 * registration order. Pattern children are tried in the order they were
 * first registered.
 *
 * Two walkers share the tree: {@linkcode walkRaw} reads the raw path by
 * index, with no allocation, and finds static children through a small hash
 * table keyed by a hash it computes while scanning for the next `/`; it gives
 * up on the first `%`, and {@linkcode walkDecoded} then walks the decoded
 * segments (percent-encoded requests are rare).
 *
 * @module
 */
import type { ParsedPattern } from "./path.ts";

/** A registered route: its normalized pattern, parameter names and payload. */
export interface Route<T> {
  /** The normalized pattern, such as `/users/:id`. */
  readonly pattern: string;
  /** Parameter names in order of appearance; `*` for the wildcard. */
  readonly names: readonly string[];
  /** What the route carries (the router stores the wrapped handler). */
  readonly value: T;
}

/**
 * What {@linkcode walkRaw} returns when it meets a `%`: the path must be
 * decoded and walked again with {@linkcode walkDecoded}.
 */
export const NEEDS_DECODING: Route<never> = Object.freeze({
  pattern: "",
  names: [],
  value: undefined as never,
});

/** Keeps segment hashes small integers, which V8 stores unboxed (Smi). */
const HASH_MASK = 0x3fffffff;

/**
 * Hashes `s[from, to)`; {@linkcode walkRaw} computes the same hash while it
 * scans for the next `/`, so a static child is found without slicing the
 * segment out of the path (a slice plus a string-keyed lookup costs about
 * three times as much).
 */
export function segmentHash(s: string, from: number, to: number): number {
  let h = 0;
  for (let i = from; i < to; i++) {
    h = (Math.imul(h, 31) + s.charCodeAt(i)) & HASH_MASK;
  }
  return h;
}

/** A node of the tree. All fields are always present so nodes keep one shape. */
export class Node<T> {
  /** The decoded segment leading to this node (`""` for the root and parameters). */
  key = "";
  /** Static children by decoded segment, or `null`. */
  statics: Map<string, Node<T>> | null = null;
  /** {@linkcode segmentHash} of `key`. */
  hash = 0;
  /**
   * Static children in an open-addressing table indexed by hash (linear
   * probing, at most half full), or `null` without static children.
   */
  slots: (Node<T> | null)[] | null = null;
  /** `slots.length - 1`; the table size is a power of two. */
  mask = 0;
  /** Pattern children in registration order, or `null`. */
  patterns: PatternChild<T>[] | null = null;
  /** The `:param` child, or `null`. */
  param: Node<T> | null = null;
  /** The route of a tail `*` under this node, or `null`. */
  wildcard: Route<T> | null = null;
  /** The route ending at this node, or `null`. */
  route: Route<T> | null = null;
}

/** A child reached through a segment that matches a regular expression. */
export interface PatternChild<T> {
  /** The shape of the segment (see `PatternSegment`); equal keys share a child. */
  readonly key: string;
  /** Matches a whole decoded segment, with group `$i` for parameter `i`. */
  readonly regexp: RegExp;
  /** The group names, `$0`, `$1`, ... */
  readonly groups: readonly string[];
  /** The node the segment leads to. */
  readonly node: Node<T>;
}

/**
 * Inserts a route.
 *
 * @param root The root of the method's tree.
 * @param parsed The parsed pattern.
 * @param route The route to store.
 * @returns The route already stored at the same place (the two can never be
 * told apart), or `null` when the route was inserted.
 */
export function insert<T>(
  root: Node<T>,
  parsed: ParsedPattern,
  route: Route<T>,
): Route<T> | null {
  let node = root;
  for (const segment of parsed.segments) {
    if (segment.kind === "static") {
      node.statics ??= new Map();
      let child = node.statics.get(segment.value);
      if (child === undefined) {
        child = new Node<T>();
        child.key = segment.value;
        child.hash = segmentHash(segment.value, 0, segment.value.length);
        node.statics.set(segment.value, child);
        rebuildSlots(node);
      }
      node = child;
    } else if (segment.kind === "param") {
      node = node.param ??= new Node<T>();
    } else if (segment.kind === "pattern") {
      node.patterns ??= [];
      let child = node.patterns.find((p) => p.key === segment.key);
      if (child === undefined) {
        child = {
          key: segment.key,
          regexp: segment.regexp,
          groups: segment.names.map((_, i) => `$${i}`),
          node: new Node<T>(),
        };
        node.patterns.push(child);
      }
      node = child.node;
    } else {
      if (node.wildcard !== null) return node.wildcard;
      node.wildcard = route;
      return null;
    }
  }
  if (node.route !== null) return node.route;
  node.route = route;
  return null;
}

/**
 * Finds the route for a raw path, reading it by index. It gives up with
 * {@linkcode NEEDS_DECODING} as soon as a segment it reads holds a `%`.
 *
 * @param node The node to match from.
 * @param path The raw path.
 * @param start The index where the next segment starts.
 * @param pos Receives `[start, end)` of parameter `i` at `2i`, `2i + 1`.
 * @param n How many parameters were captured above `node`.
 * @returns The route, or `null`.
 */
export function walkRaw<T>(
  node: Node<T>,
  path: string,
  start: number,
  pos: Int32Array,
  n: number,
): Route<T> | null {
  const len = path.length;
  if (start >= len) {
    // The end, or a transparent trailing slash.
    if (node.route !== null) return node.route;
    if (node.wildcard !== null) {
      pos[2 * n] = len;
      pos[2 * n + 1] = len;
      return node.wildcard;
    }
    return null;
  }
  let end: number;
  const slots = node.slots;
  if (slots !== null) {
    let h = 0;
    for (end = start; end < len; end++) {
      const c = path.charCodeAt(end);
      if (c === 47 /* / */) break;
      if (c === 37 /* % */) return NEEDS_DECODING as Route<T>;
      h = (Math.imul(h, 31) + c) & HASH_MASK;
    }
    const mask = node.mask;
    let i = h & mask;
    let child = slots[i]!;
    while (child !== null) {
      if (child.hash === h && sameSegment(path, start, end, child.key)) break;
      i = (i + 1) & mask;
      child = slots[i]!;
    }
    if (child !== null) {
      const found = walkRaw(child, path, end + 1, pos, n);
      if (found !== null) return found;
    }
  } else {
    for (end = start; end < len; end++) {
      const c = path.charCodeAt(end);
      if (c === 47 /* / */) break;
      if (c === 37 /* % */) return NEEDS_DECODING as Route<T>;
    }
  }
  // A parameter never matches an empty segment.
  if (end > start) {
    const patterns = node.patterns;
    if (patterns !== null) {
      const found = walkPatterns(patterns, path, start, end, pos, n);
      if (found !== null) return found;
    }
    if (node.param !== null) {
      const found = walkRaw(node.param, path, end + 1, pos, n + 1);
      if (found !== null) {
        pos[2 * n] = start;
        pos[2 * n + 1] = end;
        return found;
      }
    }
  }
  if (node.wildcard !== null) {
    if (path.indexOf("%", end) !== -1) return NEEDS_DECODING as Route<T>;
    // The tail, without the transparent trailing slash.
    pos[2 * n] = start;
    pos[2 * n + 1] = path.charCodeAt(len - 1) === 47 ? len - 1 : len;
    return node.wildcard;
  }
  return null;
}

/** {@linkcode walkRaw} through the pattern children of a node. */
function walkPatterns<T>(
  patterns: readonly PatternChild<T>[],
  path: string,
  start: number,
  end: number,
  pos: Int32Array,
  n: number,
): Route<T> | null {
  const segment = path.slice(start, end);
  for (let p = 0; p < patterns.length; p++) {
    const child = patterns[p]!;
    const groups = captures(child, segment);
    if (groups === null) continue;
    const found = walkRaw(child.node, path, end + 1, pos, n + groups.length);
    if (found !== null) {
      for (let k = 0; k < groups.length; k++) {
        const at = groups[k]!;
        pos[2 * (n + k)] = start + at[0];
        pos[2 * (n + k) + 1] = start + at[1];
      }
      return found;
    }
  }
  return null;
}

/**
 * The `[start, end)` of each parameter of a pattern child in `segment`, or
 * `null` when the segment does not match or a parameter would be empty.
 */
function captures<T>(
  child: PatternChild<T>,
  segment: string,
): [number, number][] | null {
  const match = child.regexp.exec(segment);
  if (match === null) return null;
  const indices = match.indices!.groups!;
  const out: [number, number][] = [];
  for (const group of child.groups) {
    const at = indices[group]!;
    if (at[0] === at[1]) return null;
    out.push(at);
  }
  return out;
}

/** Lays the static children of `node` out in a fresh hash table. */
function rebuildSlots<T>(node: Node<T>): void {
  const count = node.statics!.size;
  let size = 4;
  while (size < count * 2) size *= 2;
  const slots: (Node<T> | null)[] = new Array(size).fill(null);
  const mask = size - 1;
  for (const child of node.statics!.values()) {
    let i = child.hash & mask;
    while (slots[i] !== null) i = (i + 1) & mask;
    slots[i] = child;
  }
  node.slots = slots;
  node.mask = mask;
}

function sameSegment(
  path: string,
  start: number,
  end: number,
  key: string,
): boolean {
  if (key.length !== end - start) return false;
  for (let i = 0; i < key.length; i++) {
    if (path.charCodeAt(start + i) !== key.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Finds the route for decoded segments.
 *
 * @param node The node to match from.
 * @param segments The decoded segments.
 * @param i The index of the next segment.
 * @param values Receives parameter values by index.
 * @param n How many parameters were captured above `node`.
 * @returns The route, or `null`.
 */
export function walkDecoded<T>(
  node: Node<T>,
  segments: readonly string[],
  i: number,
  values: string[],
  n: number,
): Route<T> | null {
  if (i >= segments.length) {
    if (node.route !== null) return node.route;
    if (node.wildcard !== null) {
      values[n] = "";
      return node.wildcard;
    }
    return null;
  }
  const segment = segments[i]!;
  const child = node.statics?.get(segment);
  if (child !== undefined) {
    const found = walkDecoded(child, segments, i + 1, values, n);
    if (found !== null) return found;
  }
  if (node.patterns !== null && segment !== "") {
    for (const pattern of node.patterns) {
      const groups = captures(pattern, segment);
      if (groups === null) continue;
      const found = walkDecoded(
        pattern.node,
        segments,
        i + 1,
        values,
        n + groups.length,
      );
      if (found !== null) {
        for (let k = 0; k < groups.length; k++) {
          values[n + k] = segment.slice(groups[k]![0], groups[k]![1]);
        }
        return found;
      }
    }
  }
  if (node.param !== null && segment !== "") {
    const found = walkDecoded(node.param, segments, i + 1, values, n + 1);
    if (found !== null) {
      values[n] = segment;
      return found;
    }
  }
  if (node.wildcard !== null) {
    values[n] = segments.slice(i).join("/");
    return node.wildcard;
  }
  return null;
}
