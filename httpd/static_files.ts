/**
 * The static file handler: files from directories and from module-shipped
 * assets, with validators, conditional requests, ranges, precompressed
 * sidecars, index files and safe fallbacks. Configure it with an options
 * object, {@linkcode staticFiles}; {@linkcode StaticFileHandler.builder} is
 * fluent sugar over the same options (each setter is named after the
 * option it sets) and gives the same handler.
 *
 * @module
 */
import type { Handler } from "./handler.ts";
import { createStaticHandler } from "./internal/static/handler.ts";
import {
  checkBoolean,
  checkCacheControl,
  checkCacheRules,
  checkDotfiles,
  checkFallback,
  checkFetch,
  checkIndexFiles,
  checkNonNegative,
  checkRoot,
  checkUrlPrefix,
  type DotfilesMode,
  resolveStaticFileOptions,
  type RootSpec,
} from "./internal/static/options.ts";

export { IMMUTABLE_CACHE_CONTROL } from "./internal/static/fingerprint.ts";
export {
  DEFAULT_INDEX_FILES,
  DEFAULT_MAX_CACHED_FILE_SIZE,
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_NOT_FOUND_FILE,
  DEFAULT_STAT_TTL_MS,
  type DotfilesMode,
} from "./internal/static/options.ts";

/**
 * Options of {@linkcode staticFiles}. Only `roots` is required; every other
 * field has the default its documentation gives.
 *
 * @example A single-page application with fingerprinted assets
 * ```ts
 * import { Request, staticFiles, type StaticFileOptions } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html><title>app</title>");
 * await Deno.writeTextFile(`${dir}/app.3f9a1c2e.js`, "console.log(1);");
 * const options: StaticFileOptions = {
 *   roots: [dir],
 *   spaFallback: "index.html",
 *   immutableFingerprinted: true,
 *   cacheControl: "no-cache",
 * };
 * const handler = staticFiles(options);
 *
 * const page = await handler(new Request("/settings", { headers: { accept: "text/html" } }));
 * assert.equal(page.status, 200);
 * assert.equal(page.headers.get("vary"), "Accept");
 * const script = await handler(new Request("/app.3f9a1c2e.js"));
 * assert.equal(script.headers.get("cache-control"), "public, max-age=31536000, immutable");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface StaticFileOptions {
  /**
   * Where files are served from, searched in order; at least one.
   *
   * - A string is a directory on disk, relative to the working directory.
   * - A `file:` URL is a directory.
   * - An `http:` or `https:` URL is a base whose files are fetched once each
   *   and served from memory (a `static-index.json` beside them, if
   *   published, lists them and their sidecars, sparing requests for
   *   missing ones). A trailing slash is added.
   *
   * For files that ship with a module, give a URL relative to the module,
   * such as `new URL("./public/", import.meta.url)`: it is a `file:` URL
   * from source and inside a `deno compile` binary (built with
   * `--include`), and an `https:` URL when the package runs from JSR. A
   * URL held as a string is a path: wrap it in `new URL(...)`.
   */
  roots: readonly (string | URL)[];
  /**
   * Hold small files in memory (up to `maxCachedFileSize` each and
   * `memoryLimit` in total), re-checked when their stat changes. Default
   * `true`. Files fetched from `http(s):` roots are always held.
   */
  cacheInMemory?: boolean;
  /**
   * The `Cache-Control` value of file responses, such as
   * `public, max-age=3600`. Default: none.
   */
  cacheControl?: string;
  /**
   * `Cache-Control` values by path, tried in order before `cacheControl`:
   * the first rule whose `match` glob matches the file's URL path gives
   * the value. Globs work as in `.gitignore`: `*` stays within a segment,
   * `**` spans segments (`assets/**`), `{a,b}` and `[a-z]` are
   * alternatives, and a pattern without `/` matches the file name at any
   * depth (`*.html`). Default: none.
   */
  cacheRules?: readonly CacheRule[];
  /**
   * Send `Cache-Control: public, max-age=31536000, immutable` for
   * fingerprinted file names (such as `app.3f9a1c2e.js`: a segment of 8+
   * letters and digits before the extension), whatever `cacheControl` says.
   * Default `false`: only turn it on when every such name really is a
   * content hash.
   */
  immutableFingerprinted?: boolean;
  /** Serve `.zst`, `.br` and `.gz` sidecar files when the client accepts
   * them. Default `false`. */
  preferPrecompressed?: boolean;
  /**
   * Single-page mode: this file (a path below the roots, such as
   * `index.html`) answers, with status 200, GET and HEAD requests for
   * extension-less paths that match no file and whose `Accept` lists
   * `text/html`. Default: none. Excludes `notFoundFile`.
   */
  spaFallback?: string;
  /**
   * The file (a path below the roots, such as `errors/404.html`) that
   * answers, with status 404, requests that match no file. Default:
   * {@linkcode DEFAULT_NOT_FOUND_FILE} (`404.html`) when it exists and
   * `spaFallback` is not set, else a plain text 404. `false` always
   * answers with the plain text. A file name excludes `spaFallback`.
   */
  notFoundFile?: string | false;
  /**
   * Answer a directory that has no index file with a listing of its
   * files: an HTML page (names escaped, sizes, modification times,
   * directories first, a link to the parent), or JSON when `Accept`
   * prefers `application/json`. A real directory is listed even in
   * single-page mode; a path that names nothing still gets the fallback.
   * Directories below `http(s):` roots are not listed. Default `false`.
   */
  directoryListing?: boolean;
  /**
   * What a path segment starting with `.` (a dotfile or dot-directory,
   * such as `.env` or `.git/`) does, apart from `/.well-known/` (RFC 8615),
   * which is always served:
   *
   * - `"ignore"` (the default): it is missing, so it gets the 404 answer,
   *   and listings leave it out.
   * - `"allow"`: it is served and listed like any other file.
   * - `"deny"`: it gets 403 Forbidden, and listings leave it out.
   */
  dotfiles?: DotfilesMode;
  /**
   * The file names tried, in order, for a directory path. Default
   * {@linkcode DEFAULT_INDEX_FILES} (`index.html`). Empty: directories are
   * never served.
   */
  indexFiles?: readonly string[];
  /**
   * How long a file's `stat` is trusted before it is checked again, in
   * milliseconds. Default {@linkcode DEFAULT_STAT_TTL_MS} (1000); 0 checks
   * on every request.
   */
  statCacheTtlMs?: number;
  /** The largest file held in memory, in bytes. Default
   * {@linkcode DEFAULT_MAX_CACHED_FILE_SIZE} (256 KiB). */
  maxCachedFileSize?: number;
  /** The cap on the bytes all held files use together. Default
   * {@linkcode DEFAULT_MEMORY_LIMIT} (64 MiB). */
  memoryLimit?: number;
  /** The function that fetches files of `http(s):` roots (for tests and
   * custom transports). Default: the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * The URL path the files are served under, such as `/static`: the file
   * for `/static/css/site.css` is `css/site.css` below a root, `/static`
   * redirects (301) to `/static/`, directory redirects keep the prefix, and
   * a path outside it is a plain 404. Written as it appears in URLs
   * (percent-encoded where needed). Default: none, the files are at `/`.
   * Unneeded under `Router.mount` with `stripPrefix`, which strips the
   * prefix before the handler sees the path.
   */
  urlPrefix?: string;
}

/**
 * One rule of {@linkcode StaticFileOptions.cacheRules}.
 *
 * @example Fingerprinted assets for a year, HTML revalidated
 * ```ts
 * import { type CacheRule, Request, staticFiles } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/assets`);
 * await Deno.writeTextFile(`${dir}/assets/app.js`, "console.log(1);");
 * await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html>");
 * const rules: CacheRule[] = [
 *   { match: "assets/**", cacheControl: "public, max-age=31536000, immutable" },
 *   { match: "*.html", cacheControl: "no-cache" },
 * ];
 * const handler = staticFiles({ roots: [dir], cacheRules: rules, cacheControl: "max-age=60" });
 * const script = await handler(new Request("/assets/app.js"));
 * assert.equal(script.headers.get("cache-control"), "public, max-age=31536000, immutable");
 * const page = await handler(new Request("/"));
 * assert.equal(page.headers.get("cache-control"), "no-cache");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface CacheRule {
  /** A glob over the URL path, such as `assets/**` or `*.html`. */
  match: string;
  /** The `Cache-Control` value for the files it matches. */
  cacheControl: string;
}

/**
 * Creates a handler that serves static files.
 *
 * What it does, by RFC 9110 section:
 *
 * - GET and HEAD; any other method gets 405 with `Allow: GET, HEAD`.
 * - Strong ETags and `Last-Modified`. With a `static-index.json` (see
 *   `buildStaticIndex`) the ETag is a hash of the content, the same on
 *   every machine; without it, `"<mtime>-<size>"` in hex, like nginx.
 * - Preconditions in the order of section 13.2.2: `If-Match` and
 *   `If-Unmodified-Since` give 412, `If-None-Match` (weak comparison, `*`)
 *   and then `If-Modified-Since` give 304.
 * - Ranges (section 14): single, open-ended, suffix, and several ranges as
 *   `multipart/byteranges`, merged when they overlap and refused (whole
 *   200) when abusive; `If-Range`; 416 with `Content-Range: bytes * /size`.
 * - Precompressed `.zst` / `.br` / `.gz` sidecars, chosen by the client's
 *   q-values (zstd, then brotli, then gzip when they tie: zstd decodes
 *   fastest at a size close to brotli's), each with its own ETag and with
 *   `Vary: Accept-Encoding` on every 200, 206 and 304 of a file that has
 *   one. A sidecar older than its file, or not the one the index lists
 *   (size, time, SHA-256), is never served.
 * - A directory path without a trailing slash redirects (301) to the slash
 *   form when it has an index file; the slash form serves the index file.
 * - With `directoryListing`, a directory without an index file is listed
 *   (HTML, or JSON when `Accept` prefers it), and its path without the
 *   trailing slash redirects to the slash form.
 * - A miss answers with `404.html` and status 404 when the roots have one
 *   (see `notFoundFile`).
 * - Hostile paths (`..` in any encoding, encoded slashes, backslashes,
 *   invalid UTF-8, NUL) get 400; dotfiles get 404 except `/.well-known/`
 *   (see `dotfiles`); a symlink that leads outside the root is refused.
 * - Single-page mode answers with the application shell (status 200,
 *   `Cache-Control: no-cache`, `Vary: Accept`) only for GET and HEAD of an
 *   extension-less path whose `Accept` lists `text/html`; a real file is
 *   never shadowed and a missing `/app.js` stays 404.
 *
 * Pass it to `Server` as the handler, or mount it on a router beside the
 * routes with `Router.mount`. Under a URL prefix, either give `urlPrefix`
 * or mount it with `{ stripPrefix: true }`; without either, the path is
 * not stripped (the file for `/assets/app.css` is `assets/app.css` below a
 * root). Redirects keep the prefix in both cases.
 *
 * @param options Where the files are and how to serve them.
 * @returns The handler.
 * @throws {TypeError} On a bad option (the message names it), when `roots`
 * is empty, or when `spaFallback` and `notFoundFile` are both set.
 * @throws {RangeError} When a size or duration is negative or not finite.
 *
 * @example Serve a directory
 * ```ts
 * import { Request, staticFiles } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/hello.txt`, "Hello, World!");
 * const handler = staticFiles({ roots: [dir] });
 *
 * const res = await handler(new Request("/hello.txt"));
 * assert.equal(res.status, 200);
 * assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
 * assert.equal(new TextDecoder().decode(await res.body.bytes()), "Hello, World!");
 *
 * const again = await handler(
 *   new Request("/hello.txt", { headers: { "if-none-match": res.headers.get("etag")! } }),
 * );
 * assert.equal(again.status, 304);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @example Serve files beside an API
 * ```ts
 * import { Response, Router, Server, staticFiles } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/site.css`, "body{}");
 * const app = Router.builder()
 *   .get("/api/health", () => Response.json({ ok: true }))
 *   .mount("/", staticFiles({ roots: [dir], cacheControl: "max-age=60" }))
 *   .build();
 * await using server = new Server({ port: 0, bindAddress: "127.0.0.1", handler: app });
 * await server.start();
 * const res = await fetch(`http://127.0.0.1:${server.port}/site.css`);
 * assert.equal(await res.text(), "body{}");
 * assert.equal(res.headers.get("cache-control"), "max-age=60");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function staticFiles(options: StaticFileOptions): Handler {
  return createStaticHandler(resolveStaticFileOptions(options));
}

/**
 * The fluent way to configure a static file handler, for code that adds
 * settings one by one; {@linkcode staticFiles} takes them all at once.
 *
 * @example Build a handler step by step
 * ```ts
 * import { Request, StaticFileHandler } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/hello.txt`, "Hello, World!");
 * const handler = StaticFileHandler.builder().roots(dir).build();
 * const res = await handler(new Request("/hello.txt"));
 * assert.equal(res.status, 200);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const StaticFileHandler: {
  /**
   * Returns a builder for a static file handler.
   *
   * @returns A new builder.
   *
   * @example Single-page application
   * ```ts
   * import { StaticFileHandler } from "@org/httpd";
   *
   * const handler = StaticFileHandler.builder()
   *   .roots("./dist")
   *   .spaFallback("index.html")
   *   .preferPrecompressed(true)
   *   .build();
   * ```
   */
  builder(): StaticFileHandlerBuilder;
} = {
  builder(): StaticFileHandlerBuilder {
    return new StaticFileHandlerBuilder();
  },
};

/**
 * Configures a static file handler step by step: thin sugar over
 * {@linkcode StaticFileOptions}. Each setter is named after the option it
 * fills and takes its value (the list options `roots`, `cacheRules` and
 * `indexFiles` as arguments), checking it at once with the checks and
 * errors of {@linkcode staticFiles}. `roots` and `cacheRules` add to their
 * lists, so they can be called once per entry; every other setter replaces
 * the value. {@linkcode StaticFileHandlerBuilder.build} hands the options
 * to {@linkcode staticFiles}.
 *
 * @example Several roots, searched in order
 * ```ts
 * import { Request, StaticFileHandler } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const a = await Deno.makeTempDir();
 * const b = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${b}/only-in-b.css`, "p{}");
 * const handler = StaticFileHandler.builder().roots(a, b)
 *   .cacheControl("max-age=60").build();
 * const res = await handler(new Request("/only-in-b.css"));
 * assert.equal(res.status, 200);
 * assert.equal(res.headers.get("cache-control"), "max-age=60");
 * await Deno.remove(a, { recursive: true });
 * await Deno.remove(b, { recursive: true });
 * ```
 */
export class StaticFileHandlerBuilder {
  #roots: (string | URL)[] = [];
  #options: StaticFileOptions = { roots: this.#roots };

  /**
   * Adds to {@linkcode StaticFileOptions.roots}: directories, or URLs of
   * files that ship with a module (`new URL("./public/", import.meta.url)`).
   * Roots are searched in the order added. As in the options, a string is
   * a path on disk: give a URL as a `URL`.
   *
   * @param roots Paths (relative to the working directory) or URLs.
   * @returns This builder.
   * @throws {TypeError} On an empty path or a URL of another scheme.
   *
   * @example Files beside the module
   * ```ts
   * import { StaticFileHandler } from "@org/httpd";
   *
   * const handler = StaticFileHandler.builder()
   *   .roots(new URL("./public/", import.meta.url), "./uploads")
   *   .build();
   * ```
   */
  roots(...roots: (string | URL)[]): this {
    const checked = roots.map((root) => rootOption(checkRoot(root)));
    this.#roots.push(...checked);
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.cacheInMemory}. Default `true`.
   *
   * @param enabled Whether to hold small files in memory.
   * @returns This builder.
   */
  cacheInMemory(enabled: boolean): this {
    this.#options.cacheInMemory = checkBoolean("cacheInMemory", enabled);
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.cacheControl}. Default: none.
   *
   * @param value The field value, such as `public, max-age=3600`.
   * @returns This builder.
   * @throws {TypeError} When the value contains CR, LF or NUL.
   */
  cacheControl(value: string): this {
    this.#options.cacheControl = checkCacheControl(value);
    return this;
  }

  /**
   * Adds rules to {@linkcode StaticFileOptions.cacheRules}, tried in the
   * order added.
   *
   * @param rules Globs over the URL path and their `Cache-Control` values.
   * @returns This builder.
   * @throws {TypeError} On a malformed glob or a value with CR, LF or NUL.
   *
   * @example Fingerprinted assets for a year, HTML revalidated
   * ```ts
   * import { StaticFileHandler } from "@org/httpd";
   *
   * const handler = StaticFileHandler.builder()
   *   .roots("./dist")
   *   .cacheRules(
   *     { match: "assets/**", cacheControl: "public, max-age=31536000, immutable" },
   *     { match: "*.html", cacheControl: "no-cache" },
   *   )
   *   .build();
   * ```
   */
  cacheRules(...rules: CacheRule[]): this {
    const copies = rules.map((r) => ({ ...r }));
    checkCacheRules(copies);
    this.#options.cacheRules = [...(this.#options.cacheRules ?? []), ...copies];
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.directoryListing}. Default `false`.
   *
   * @param enabled Whether to list directories without an index file.
   * @returns This builder.
   */
  directoryListing(enabled: boolean): this {
    this.#options.directoryListing = checkBoolean("directoryListing", enabled);
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.dotfiles}. Default `"ignore"`.
   *
   * @param mode `"ignore"`, `"allow"` or `"deny"`.
   * @returns This builder.
   * @throws {TypeError} On another value.
   */
  dotfiles(mode: DotfilesMode): this {
    this.#options.dotfiles = checkDotfiles(mode);
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.immutableFingerprinted}. Default
   * `false`.
   *
   * @param enabled Whether to mark fingerprinted files immutable.
   * @returns This builder.
   */
  immutableFingerprinted(enabled: boolean): this {
    this.#options.immutableFingerprinted = checkBoolean(
      "immutableFingerprinted",
      enabled,
    );
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.preferPrecompressed}. Default `false`.
   *
   * @param enabled Whether to look for sidecars.
   * @returns This builder.
   */
  preferPrecompressed(enabled: boolean): this {
    this.#options.preferPrecompressed = checkBoolean(
      "preferPrecompressed",
      enabled,
    );
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.spaFallback}. Excludes
   * `notFoundFile`.
   *
   * @param file The shell's path below the roots, such as `index.html`.
   * @returns This builder.
   * @throws {TypeError} When the file is not a safe file path.
   */
  spaFallback(file: string): this {
    checkFallback("spaFallback", file);
    this.#options.spaFallback = file;
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.notFoundFile}. A file name excludes
   * `spaFallback`.
   *
   * @param file The page's path below the roots, such as `404.html`, or
   * `false` for a plain text 404 even when `404.html` exists.
   * @returns This builder.
   * @throws {TypeError} When the file is not a safe file path.
   */
  notFoundFile(file: string | false): this {
    if (file !== false) checkFallback("notFoundFile", file);
    this.#options.notFoundFile = file;
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.indexFiles}. Default `index.html`.
   *
   * @param names File names, such as `index.html`, `index.htm`.
   * @returns This builder.
   * @throws {TypeError} On a name that is not a plain file name.
   */
  indexFiles(...names: string[]): this {
    this.#options.indexFiles = checkIndexFiles(names);
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.statCacheTtlMs}. Default 1000 ms; 0
   * checks on every request.
   *
   * @param ms Milliseconds.
   * @returns This builder.
   * @throws {RangeError} When negative or not finite.
   */
  statCacheTtlMs(ms: number): this {
    this.#options.statCacheTtlMs = checkNonNegative("statCacheTtlMs", ms);
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.maxCachedFileSize}. Default 256 KiB.
   *
   * @param bytes The size in bytes.
   * @returns This builder.
   * @throws {RangeError} When negative or not finite.
   */
  maxCachedFileSize(bytes: number): this {
    this.#options.maxCachedFileSize = checkNonNegative(
      "maxCachedFileSize",
      bytes,
    );
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.memoryLimit}. Default 64 MiB.
   *
   * @param bytes The size in bytes.
   * @returns This builder.
   * @throws {RangeError} When negative or not finite.
   */
  memoryLimit(bytes: number): this {
    this.#options.memoryLimit = checkNonNegative("memoryLimit", bytes);
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.urlPrefix}. Default: none.
   *
   * @param prefix The URL path, such as `/static`.
   * @returns This builder.
   * @throws {TypeError} When it is not a URL path.
   *
   * @example Serve a directory under /static
   * ```ts
   * import { Request, StaticFileHandler } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * await Deno.writeTextFile(`${dir}/site.css`, "p{}");
   * const handler = StaticFileHandler.builder().roots(dir).urlPrefix("/static").build();
   * assert.equal((await handler(new Request("/static/site.css"))).status, 200);
   * assert.equal((await handler(new Request("/site.css"))).status, 404);
   * const bare = await handler(new Request("/static?v=1"));
   * assert.equal(bare.headers.get("location"), "/static/?v=1");
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  urlPrefix(prefix: string): this {
    this.#options.urlPrefix = checkUrlPrefix(prefix);
    return this;
  }

  /**
   * Sets {@linkcode StaticFileOptions.fetch}. Default: the global `fetch`.
   *
   * @param fn A `fetch`-compatible function.
   * @returns This builder.
   */
  fetch(fn: typeof fetch): this {
    this.#options.fetch = checkFetch(fn);
    return this;
  }

  /**
   * Checks the configuration as a whole and returns the handler:
   * `staticFiles(options)` with the options set so far.
   *
   * @returns The handler.
   * @throws {TypeError} When no root was added, or when both
   * `spaFallback` and `notFoundFile` are set.
   */
  build(): Handler {
    return staticFiles(this.#options);
  }
}

// A checked root as the options hold it: the absolute directory (resolved
// against the working directory when it was added) or the base URL.
function rootOption(root: RootSpec): string | URL {
  return root.kind === "path" ? root.dir : root.url;
}
