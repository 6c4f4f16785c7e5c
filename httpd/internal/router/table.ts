/**
 * The route table: per method, a map of fully static paths (one lookup, no
 * allocation) in front of a segment tree for the rest.
 *
 * @module
 */
import { type ParsedPattern, splitDecoded, withoutLast } from "./path.ts";
import {
  insert,
  NEEDS_DECODING,
  Node,
  type Route,
  walkDecoded,
  walkRaw,
} from "./tree.ts";

export type { Route } from "./tree.ts";

/** The parameters of a route without any, shared by every static match. */
export const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** How many parameters one pattern may have: more is surely a mistake, and
 * the bound sizes the scratch array the lookup reuses. */
export const MAX_PARAMS = 64;

/** The order `Allow` lists methods in. */
const METHOD_ORDER = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
];

class MethodTable<T> {
  readonly statics = new Map<string, Route<T>>();
  readonly root = new Node<T>();
}

/** Options of {@linkcode RouteTable.add}. */
export interface AddOptions {
  /** Skip the route silently when its place is taken (implicit HEAD). */
  ifFree?: boolean;
}

/**
 * Routes by method and path. `lookup` sets {@linkcode RouteTable.params}
 * for the route it returns (lookups are synchronous, so one field serves).
 */
export class RouteTable<T> {
  /** The decoded parameters of the last successful lookup. */
  params: Readonly<Record<string, string>> = NO_PARAMS;
  readonly #methods = new Map<string, MethodTable<T>>();
  readonly #pos = new Int32Array(2 * MAX_PARAMS);

  /**
   * Adds a route.
   *
   * @param method The method, or any key (the router uses `*` for mounts).
   * @param parsed The parsed pattern.
   * @param value The payload.
   * @param options Whether to skip a taken place instead of failing.
   * @throws {TypeError} When another route of the method has the same shape.
   */
  add(
    method: string,
    parsed: ParsedPattern,
    value: T,
    options?: AddOptions,
  ): void {
    if (parsed.names.length > MAX_PARAMS) {
      throw new RangeError(
        `Cannot add route "${parsed.pattern}": more than ${MAX_PARAMS} parameters`,
      );
    }
    let table = this.#methods.get(method);
    if (table === undefined) {
      this.#methods.set(method, table = new MethodTable());
    }
    place(table, method, parsed, parsed, value, options);
    // An optional last parameter: the pattern also stands without it.
    if (parsed.optional) {
      place(table, method, withoutLast(parsed), parsed, value, options);
    }
  }

  /**
   * Finds the route of a method for a raw path.
   *
   * @param method The method (key) to look in.
   * @param path The raw, percent-encoded path.
   * @returns The route, or `null`; {@linkcode RouteTable.params} holds its
   * decoded parameters.
   * @throws {MalformedPathError} When the path needs decoding and has a
   * malformed escape.
   */
  lookup(method: string, path: string): Route<T> | null {
    const table = this.#methods.get(method);
    if (table === undefined) return null;
    const hit = table.statics.get(path);
    if (hit !== undefined) {
      this.params = NO_PARAMS;
      return hit;
    }
    if (path.charCodeAt(0) !== 47 /* / */) {
      if (path !== "") return null;
      path = "/";
    }
    const pos = this.#pos;
    const raw = walkRaw(table.root, path, 1, pos, 0);
    if (raw === null) return null;
    if (raw !== NEEDS_DECODING) {
      const names = raw.names;
      if (names.length === 0) {
        this.params = NO_PARAMS;
        return raw;
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) {
        params[names[i]!] = path.slice(pos[2 * i]!, pos[2 * i + 1]!);
      }
      this.params = params;
      return raw;
    }
    // A segment holds a "%": decode every segment and walk again.
    const values: string[] = [];
    const route = walkDecoded(table.root, splitDecoded(path), 0, values, 0);
    if (route === null) return null;
    const names = route.names;
    const params: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) params[names[i]!] = values[i]!;
    this.params = names.length === 0 ? NO_PARAMS : params;
    return route;
  }

  /**
   * Lists the methods with a route for the path, in the order `Allow` uses
   * (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, then others by name).
   *
   * @param path The raw path.
   * @param skip A key to leave out (the router's mount key).
   * @returns The methods; empty when no route matches.
   */
  allowed(path: string, skip: string): string[] {
    const out: string[] = [];
    for (const method of this.#methods.keys()) {
      if (method !== skip && this.lookup(method, path) !== null) {
        out.push(method);
      }
    }
    return out.sort(compareMethods);
  }
}

/** Inserts one shape of a route; `source` is the pattern as registered. */
function place<T>(
  table: MethodTable<T>,
  method: string,
  parsed: ParsedPattern,
  source: ParsedPattern,
  value: T,
  options: AddOptions | undefined,
): void {
  const route: Route<T> = {
    pattern: source.pattern,
    names: parsed.names,
    value,
  };
  const taken = insert(table.root, parsed, route);
  if (taken !== null) {
    if (options?.ifFree) return;
    const what = method === "*" ? "mount" : `route ${method}`;
    throw new TypeError(
      `Cannot add ${what} "${source.pattern}": it conflicts with "${taken.pattern}"`,
    );
  }
  if (parsed.plainStatic) {
    table.statics.set(parsed.pattern, route);
    if (parsed.pattern !== "/") table.statics.set(parsed.pattern + "/", route);
  }
}

function compareMethods(a: string, b: string): number {
  const i = METHOD_ORDER.indexOf(a);
  const j = METHOD_ORDER.indexOf(b);
  if (i !== -1 || j !== -1) {
    return (i === -1 ? METHOD_ORDER.length : i) -
      (j === -1 ? METHOD_ORDER.length : j);
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
