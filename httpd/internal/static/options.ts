/**
 * The settings of a static file handler: their defaults, and the checks that
 * turn a `StaticFileOptions` object into settings the handler can trust.
 * `staticFiles(options)` and every setter of the builder call these same
 * functions, so both forms accept the same values and refuse the rest with
 * the same error, naming the option.
 *
 * @module
 */
import { resolve as resolvePathOnDisk } from "node:path";
import { fileURLToPath } from "node:url";
import type { CacheRule, StaticFileOptions } from "../../static_files.ts";
import { compileGlob } from "./glob.ts";
import { resolvePath } from "./path.ts";

/** Default index file names tried for a directory path. */
export const DEFAULT_INDEX_FILES: readonly string[] = Object.freeze([
  "index.html",
]);
/** The page that answers misses with 404 when it exists and no fallback is
 * set, as on GitHub Pages, Netlify and Cloudflare Pages. */
export const DEFAULT_NOT_FOUND_FILE = "404.html";
/** What happens to dot segments of a path: see `StaticFileOptions.dotfiles`. */
export type DotfilesMode = "ignore" | "allow" | "deny";
const DOTFILES_MODES: readonly DotfilesMode[] = ["ignore", "allow", "deny"];
/** Default largest file held in memory: small hot files (HTML, CSS, JS,
 * icons) fit; media and archives are streamed from disk. */
export const DEFAULT_MAX_CACHED_FILE_SIZE = 256 * 1024;
/** Default cap on the bytes all cached files may hold together. */
export const DEFAULT_MEMORY_LIMIT = 64 * 1024 * 1024;
/** Default time a `stat` result is trusted, in milliseconds: a changed file
 * is noticed within a second, and a hot file costs no system call (nginx's
 * `open_file_cache_valid` is 60 s). */
export const DEFAULT_STAT_TTL_MS = 1000;

/** A checked root: an absolute directory on disk, or a remote base URL
 * ending with a slash. */
export type RootSpec =
  | { readonly kind: "path"; readonly dir: string }
  | { readonly kind: "url"; readonly url: URL };

/** A checked `Cache-Control` rule. */
export interface CompiledCacheRule {
  /** Matches decoded URL paths (starting with `/`). */
  readonly pattern: RegExp;
  /** The value sent for them. */
  readonly cacheControl: string;
}

/** Every setting of a handler, checked and with the defaults filled in. */
export interface StaticSettings {
  /** Where files are looked up, in order; never empty. */
  readonly roots: readonly RootSpec[];
  /** Hold small files in memory. */
  readonly cacheInMemory: boolean;
  /** The `Cache-Control` value of file responses, if any. */
  readonly cacheControl: string | undefined;
  /** Per-path `Cache-Control` values, first match wins. */
  readonly cacheRules: readonly CompiledCacheRule[];
  /** Mark fingerprinted file names immutable. */
  readonly immutableFingerprinted: boolean;
  /** Look for `.zst` / `.br` / `.gz` sidecars. */
  readonly preferPrecompressed: boolean;
  /** The single-page shell, as a safe decoded path. */
  readonly spaFallback: string | undefined;
  /** The not-found page, as a safe decoded path. */
  readonly notFoundFile: string | undefined;
  /** Answer a directory without an index file with a listing. */
  readonly directoryListing: boolean;
  /** What dot segments do. */
  readonly dotfiles: DotfilesMode;
  /** Index file names tried for a directory path. */
  readonly indexFiles: readonly string[];
  /** How long a `stat` result is trusted, in milliseconds. */
  readonly statCacheTtlMs: number;
  /** The largest file held in memory, in bytes. */
  readonly maxCachedFileSize: number;
  /** The cap on the bytes all held files use together. */
  readonly memoryLimit: number;
  /** Fetches `http(s):` roots. */
  readonly fetch: typeof fetch;
  /** The URL path the files are served under, as sent (`""` for none). */
  readonly urlPrefix: string;
}

/** The option names, for error messages that name the culprit. */
export type StaticOptionName = keyof StaticFileOptions;

// Header field values may not carry CR, LF or NUL (RFC 9110 section 5.5).
const FORBIDDEN_VALUE = /[\r\n\0]/;

function fail(option: StaticOptionName, why: string): TypeError {
  return new TypeError(`Cannot use static file option "${option}": ${why}`);
}

/**
 * Checks one root and says where it is. A string is a directory on disk
 * (relative to the working directory); a `file:` URL is a directory too;
 * an `http:` or `https:` URL is a base whose files are fetched.
 *
 * @param root A path or a URL.
 * @returns The root, with an absolute directory or a base ending in `/`.
 * @throws {TypeError} On an empty path, another URL scheme or another type.
 */
export function checkRoot(root: string | URL): RootSpec {
  if (typeof root === "string") {
    if (root === "") throw fail("roots", "a path is empty");
    return { kind: "path", dir: resolvePathOnDisk(root) };
  }
  if (!(root instanceof URL)) {
    throw fail("roots", `${describe(root)} is neither a path nor a URL`);
  }
  if (root.protocol === "file:") {
    return { kind: "path", dir: resolvePathOnDisk(fileURLToPath(root)) };
  }
  if (root.protocol === "https:" || root.protocol === "http:") {
    const url = new URL(root);
    if (!url.pathname.endsWith("/")) url.pathname += "/";
    return { kind: "url", url };
  }
  throw fail("roots", `"${root.href}" is neither a file: nor an http(s): URL`);
}

/**
 * Parses the base URL of module-shipped files, as the builder's
 * `addEmbedded` receives it.
 *
 * @param url An absolute URL, as a string or a `URL`.
 * @returns The checked root.
 * @throws {TypeError} When the string is not an absolute URL, or on a
 * scheme other than `file:`, `http:` and `https:`.
 */
export function checkEmbedded(url: string | URL): RootSpec {
  if (url instanceof URL) return checkRoot(url);
  const parsed = URL.parse(url);
  if (parsed === null) throw fail("roots", `"${url}" is not an absolute URL`);
  return checkRoot(parsed);
}

/**
 * Checks a `Cache-Control` value.
 *
 * @param value The field value.
 * @param option The option that carries it, for the message.
 * @returns The value.
 * @throws {TypeError} When it is not a string or contains CR, LF or NUL.
 */
export function checkCacheControl(
  value: string,
  option: "cacheControl" | "cacheRules" = "cacheControl",
): string {
  if (typeof value !== "string") {
    throw fail(option, `${describe(value)} is not a string`);
  }
  if (FORBIDDEN_VALUE.test(value)) {
    throw fail(option, `"${value}" contains CR, LF or NUL`);
  }
  return value;
}

/**
 * Checks `Cache-Control` rules and compiles their patterns.
 *
 * @param rules The rules, first match wins.
 * @returns The compiled rules.
 * @throws {TypeError} On a rule that is not `{ match, cacheControl }` with
 * a valid pattern and value.
 */
export function checkCacheRules(
  rules: readonly CacheRule[],
): readonly CompiledCacheRule[] {
  if (!Array.isArray(rules)) {
    throw fail("cacheRules", `${describe(rules)} is not an array of rules`);
  }
  return rules.map((rule) => {
    if (typeof rule !== "object" || rule === null) {
      throw fail("cacheRules", `${describe(rule)} is not a rule`);
    }
    let pattern: RegExp;
    try {
      pattern = compileGlob(rule.match);
    } catch (error) {
      throw fail("cacheRules", (error as Error).message);
    }
    return {
      pattern,
      cacheControl: checkCacheControl(rule.cacheControl, "cacheRules"),
    };
  });
}

/**
 * Checks a `dotfiles` mode.
 *
 * @param value `ignore`, `allow` or `deny`.
 * @returns The mode.
 * @throws {TypeError} On any other value.
 */
export function checkDotfiles(value: DotfilesMode): DotfilesMode {
  if (!DOTFILES_MODES.includes(value)) {
    throw fail(
      "dotfiles",
      `${describe(value)} is not one of ${DOTFILES_MODES.join(", ")}`,
    );
  }
  return value;
}

/**
 * Checks the file of `spaFallback` or `notFoundFile` and resolves it to a
 * decoded path below the roots.
 *
 * @param option Which of the two.
 * @param file The file, such as `index.html` or `/404.html`.
 * @returns The decoded path, starting with `/`.
 * @throws {TypeError} When the file is not a safe path to a file.
 */
export function checkFallback(
  option: "spaFallback" | "notFoundFile",
  file: string,
): string {
  if (typeof file !== "string") {
    throw fail(option, `${describe(file)} is not a string`);
  }
  const path = resolvePath(file.startsWith("/") ? file : "/" + file);
  if (typeof path === "number" || path.endsWith("/")) {
    throw fail(option, `"${file}" is not a safe file path`);
  }
  return path;
}

/**
 * Checks index file names: plain names, no directories, no dotfiles.
 *
 * @param names The names, tried in order.
 * @returns A frozen copy of the names.
 * @throws {TypeError} On a name that is not a plain file name.
 */
export function checkIndexFiles(names: readonly string[]): readonly string[] {
  if (!Array.isArray(names)) {
    throw fail("indexFiles", `${describe(names)} is not an array of names`);
  }
  for (const name of names) {
    if (
      typeof name !== "string" || name === "" || name.includes("/") ||
      name.startsWith(".")
    ) {
      throw fail("indexFiles", `${describe(name)} is not a plain file name`);
    }
  }
  return Object.freeze([...names]);
}

/**
 * Checks a size or a duration.
 *
 * @param option The option's name.
 * @param value The number.
 * @returns The number.
 * @throws {RangeError} When it is negative, infinite or not a number.
 */
export function checkNonNegative(
  option: "statCacheTtlMs" | "maxCachedFileSize" | "memoryLimit",
  value: number,
): number {
  if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
    throw new RangeError(
      `Cannot use static file option "${option}": ${
        describe(value)
      } is not a non-negative number`,
    );
  }
  return value;
}

/**
 * Checks an on/off option.
 *
 * @param option The option's name.
 * @param value The flag.
 * @returns The flag.
 * @throws {TypeError} When it is not a boolean.
 */
export function checkBoolean(
  option:
    | "cacheInMemory"
    | "immutableFingerprinted"
    | "preferPrecompressed"
    | "directoryListing",
  value: boolean,
): boolean {
  if (typeof value !== "boolean") {
    throw fail(option, `${describe(value)} is not a boolean`);
  }
  return value;
}

// RFC 3986 section 3.3: a path is "/" segment*, a segment pchar* (unreserved,
// pct-encoded, sub-delims, ":" and "@").
const URL_PATH = /^(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+)+$/;

/**
 * Checks the URL prefix the files are served under: an absolute path as it
 * appears in requests (percent-encoded where needed), without dot segments
 * or empty segments. One trailing slash is dropped; `/` means no prefix.
 *
 * @param prefix The prefix, such as `/static`.
 * @returns The prefix without a trailing slash, or `""` for `/`.
 * @throws {TypeError} When it is not such a path.
 */
export function checkUrlPrefix(prefix: string): string {
  if (typeof prefix !== "string") {
    throw fail("urlPrefix", `${describe(prefix)} is not a string`);
  }
  const trimmed = prefix.length > 1 && prefix.endsWith("/")
    ? prefix.slice(0, -1)
    : prefix;
  if (prefix === "/") return "";
  if (!URL_PATH.test(trimmed) || /\/\.{1,2}(?:\/|$)/.test(trimmed)) {
    throw fail(
      "urlPrefix",
      `"${prefix}" is not a URL path such as "/static" (no query, no dot or empty segments)`,
    );
  }
  return trimmed;
}

/**
 * Checks the function that fetches remote roots.
 *
 * @param fn A `fetch`-compatible function.
 * @returns The function.
 * @throws {TypeError} When it is not a function.
 */
export function checkFetch(fn: typeof fetch): typeof fetch {
  if (typeof fn !== "function") {
    throw fail("fetch", `${describe(fn)} is not a function`);
  }
  return fn;
}

/**
 * Checks a whole options object and fills in the defaults.
 *
 * @param options The options of `staticFiles`.
 * @returns The settings.
 * @throws {TypeError} On a bad value (the message names the option), when
 * there is no root, or when `spaFallback` and `notFoundFile` are both set.
 * @throws {RangeError} On a negative or non-finite size or duration.
 */
export function resolveStaticFileOptions(
  options: StaticFileOptions,
): StaticSettings {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `Cannot create static file handler: ${
        describe(options)
      } is not an options object`,
    );
  }
  const roots = options.roots;
  if (!Array.isArray(roots)) {
    throw fail("roots", `${describe(roots)} is not an array of roots`);
  }
  if (roots.length === 0) throw fail("roots", "no root given");
  const o = options;
  if (
    o.spaFallback !== undefined && o.notFoundFile !== undefined &&
    o.notFoundFile !== false
  ) {
    throw new TypeError(
      'Cannot use static file options "spaFallback" and "notFoundFile" together: they exclude each other',
    );
  }
  return {
    roots: roots.map(checkRoot),
    cacheInMemory: orDefault(
      o.cacheInMemory,
      true,
      checkBoolean,
      "cacheInMemory",
    ),
    cacheControl: o.cacheControl === undefined
      ? undefined
      : checkCacheControl(o.cacheControl),
    cacheRules: o.cacheRules === undefined ? [] : checkCacheRules(o.cacheRules),
    immutableFingerprinted: orDefault(
      o.immutableFingerprinted,
      false,
      checkBoolean,
      "immutableFingerprinted",
    ),
    preferPrecompressed: orDefault(
      o.preferPrecompressed,
      false,
      checkBoolean,
      "preferPrecompressed",
    ),
    spaFallback: orDefault(
      o.spaFallback,
      undefined,
      checkFallback,
      "spaFallback",
    ),
    notFoundFile: o.notFoundFile === false
      ? undefined
      : o.notFoundFile === undefined
      ? (o.spaFallback === undefined ? "/" + DEFAULT_NOT_FOUND_FILE : undefined)
      : checkFallback("notFoundFile", o.notFoundFile),
    directoryListing: orDefault(
      o.directoryListing,
      false,
      checkBoolean,
      "directoryListing",
    ),
    dotfiles: o.dotfiles === undefined ? "ignore" : checkDotfiles(o.dotfiles),
    indexFiles: o.indexFiles === undefined
      ? DEFAULT_INDEX_FILES
      : checkIndexFiles(o.indexFiles),
    statCacheTtlMs: orDefault(
      o.statCacheTtlMs,
      DEFAULT_STAT_TTL_MS,
      checkNonNegative,
      "statCacheTtlMs",
    ),
    maxCachedFileSize: orDefault(
      o.maxCachedFileSize,
      DEFAULT_MAX_CACHED_FILE_SIZE,
      checkNonNegative,
      "maxCachedFileSize",
    ),
    memoryLimit: orDefault(
      o.memoryLimit,
      DEFAULT_MEMORY_LIMIT,
      checkNonNegative,
      "memoryLimit",
    ),
    fetch: o.fetch === undefined ? fetch : checkFetch(o.fetch),
    urlPrefix: o.urlPrefix === undefined ? "" : checkUrlPrefix(o.urlPrefix),
  };
}

// The default when the option is absent, else the checked value.
function orDefault<N extends StaticOptionName, T, D>(
  value: T | undefined,
  fallback: D,
  check: (option: N, value: T) => T,
  option: N,
): T | D {
  return value === undefined ? fallback : check(option, value);
}

function describe(value: unknown): string {
  if (typeof value === "string") return `"${value}"`;
  if (typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
