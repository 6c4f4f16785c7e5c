/**
 * The static file handler: files from directories and from module-shipped
 * assets, with validators, conditional requests, ranges, precompressed
 * sidecars, index files and safe fallbacks.
 *
 * @module
 */
import { resolve as resolvePathOnDisk } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { AcceptEncoding } from "./accept_encoding.ts";
import { Body } from "./body.ts";
import type { Handler } from "./handler.ts";
import { HttpHeaders } from "./headers.ts";
import type { Request } from "./request.ts";
import { Response } from "./response.ts";
import { acceptsHtml } from "./internal/static/accept_html.ts";
import type { Asset, AssetSettings, Variant } from "./internal/static/asset.ts";
import {
  evaluatePreconditions,
  ifRangeMatches,
  Precondition,
} from "./internal/static/conditional.ts";
import {
  IMMUTABLE_CACHE_CONTROL,
  isFingerprinted,
} from "./internal/static/fingerprint.ts";
import { FsRoot } from "./internal/static/fs_root.ts";
import { INDEX_FILE_NAME } from "./internal/static/index_format.ts";
import { makeBoundary, multipartBody } from "./internal/static/multipart.ts";
import { BAD_PATH, hasExtension, resolvePath } from "./internal/static/path.ts";
import { parseRange } from "./internal/static/range.ts";
import {
  DIRECTORY,
  type LookupResult,
  type MemoryBudget,
  type Root,
} from "./internal/static/root.ts";
import { encodePath, UrlRoot } from "./internal/static/url_root.ts";

/** Default index file names tried for a directory path. */
export const DEFAULT_INDEX_FILES: readonly string[] = ["index.html"];
/** Default largest file held in memory: small hot files (HTML, CSS, JS,
 * icons) fit; media and archives are streamed from disk. */
export const DEFAULT_MAX_CACHED_FILE_SIZE = 256 * 1024;
/** Default cap on the bytes all cached files may hold together. */
export const DEFAULT_MEMORY_LIMIT = 64 * 1024 * 1024;
/** Default time a `stat` result is trusted, in milliseconds: a changed file
 * is noticed within a second, and a hot file costs no system call (nginx's
 * `open_file_cache_valid` is 60 s). */
export const DEFAULT_STAT_TTL_MS = 1000;

const ALLOW = "GET, HEAD";
const NO_CACHE = "no-cache";
const EMPTY_NAMES: readonly string[] = [];
// A source with nothing in it, shared by every HEAD response.
const NO_CONTENT: AsyncIterable<Uint8Array> = {
  [Symbol.asyncIterator]: () => ({
    next: () => Promise.resolve({ done: true, value: undefined }),
  }),
};

/**
 * Serves static files. Start with {@linkcode StaticFileHandler.builder}.
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
 * - Precompressed `.br` / `.gz` sidecars, chosen by the client's q-values,
 *   each with its own ETag and with `Vary: Accept-Encoding` on every 200,
 *   206 and 304 of a file that has one. A sidecar older than its file, or
 *   not the one the index lists (size, time, SHA-256), is never served.
 * - A directory path without a trailing slash redirects (301) to the slash
 *   form when it has an index file; the slash form serves the index file.
 * - Hostile paths (`..` in any encoding, encoded slashes, backslashes,
 *   invalid UTF-8, NUL) get 400; dotfiles get 404 except `/.well-known/`;
 *   a symlink that leads outside the root is refused.
 * - Single-page mode answers with the application shell (status 200,
 *   `Cache-Control: no-cache`, `Vary: Accept`) only for GET and HEAD of an
 *   extension-less path whose `Accept` lists `text/html`; a real file is
 *   never shadowed and a missing `/app.js` stays 404.
 *
 * @example Serve a directory
 * ```ts
 * import { Request, StaticFileHandler } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/hello.txt`, "Hello, World!");
 * const handler = StaticFileHandler.builder().addPath(dir).build();
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
   *   .addPath("./dist")
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
 * Configures a static file handler. Every setter returns the builder;
 * {@linkcode StaticFileHandlerBuilder.build} checks the whole and returns the
 * handler.
 *
 * @example Several roots, searched in order
 * ```ts
 * import { Request, StaticFileHandler } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const a = await Deno.makeTempDir();
 * const b = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${b}/only-in-b.css`, "p{}");
 * const handler = StaticFileHandler.builder().addPath(a).addPath(b)
 *   .cacheControl("max-age=60").build();
 * const res = await handler(new Request("/only-in-b.css"));
 * assert.equal(res.status, 200);
 * assert.equal(res.headers.get("cache-control"), "max-age=60");
 * await Deno.remove(a, { recursive: true });
 * await Deno.remove(b, { recursive: true });
 * ```
 */
export class StaticFileHandlerBuilder {
  #roots: ({ kind: "path"; dir: string } | { kind: "url"; url: URL })[] = [];
  #cacheInMemory = true;
  #cacheControl: string | undefined;
  #immutableFingerprinted = false;
  #preferPrecompressed = false;
  #spaFallback: string | undefined;
  #notFoundFile: string | undefined;
  #indexFiles: readonly string[] = DEFAULT_INDEX_FILES;
  #statTtlMs = DEFAULT_STAT_TTL_MS;
  #maxCachedFileSize = DEFAULT_MAX_CACHED_FILE_SIZE;
  #memoryLimit = DEFAULT_MEMORY_LIMIT;
  #fetch: typeof fetch = fetch;

  /**
   * Adds a directory to serve from. Roots are searched in the order added.
   *
   * @param dir A path (relative to the working directory) or a `file:` URL.
   * @returns This builder.
   */
  addPath(dir: string | URL): this {
    const path = dir instanceof URL ? fromFileUrl(dir) : dir;
    if (path === "") throw new TypeError("Cannot add path: it is empty");
    this.#roots.push({ kind: "path", dir: resolvePathOnDisk(path) });
    return this;
  }

  /**
   * Adds files that ship with a module, the way a Java application serves
   * from its classpath. Give a URL relative to the module, such as
   * `new URL("./public/", import.meta.url)`: from source and inside a
   * `deno compile` binary (built with `--include`) it is a `file:` URL and is
   * served like a directory; when the package runs from JSR it is an
   * `https:` URL, and each file is fetched once and served from memory (a
   * `static-index.json` next to the files, if published, lists them and
   * their sidecars, sparing requests for missing ones).
   *
   * @param url The base URL of the files; a trailing slash is added.
   * @returns This builder.
   * @throws {TypeError} When the URL is neither `file:` nor `http(s):`.
   */
  addEmbedded(url: string | URL): this {
    const base = new URL(url);
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    if (base.protocol === "file:") {
      this.#roots.push({ kind: "path", dir: fromFileUrl(base) });
    } else if (base.protocol === "https:" || base.protocol === "http:") {
      this.#roots.push({ kind: "url", url: base });
    } else {
      throw new TypeError(
        `Cannot add embedded files from "${base.href}": unsupported scheme`,
      );
    }
    return this;
  }

  /**
   * Holds small files in memory (up to `maxCachedFileSize` each and
   * `memoryLimit` in total), re-checked when their stat changes. Default
   * `true`. Files fetched from `https:` are always held.
   *
   * @param enabled Whether to hold small files.
   * @returns This builder.
   */
  cacheInMemory(enabled: boolean): this {
    this.#cacheInMemory = enabled;
    return this;
  }

  /**
   * Sets the `Cache-Control` value of file responses. Default: none.
   *
   * @param value The field value, such as `public, max-age=3600`.
   * @returns This builder.
   */
  cacheControl(value: string): this {
    if (/[\r\n\0]/.test(value)) {
      throw new TypeError(
        `Cannot use cache control "${value}": it contains CR, LF or NUL`,
      );
    }
    this.#cacheControl = value;
    return this;
  }

  /**
   * Sends `Cache-Control: public, max-age=31536000, immutable` for
   * fingerprinted file names (such as `app.3f9a1c2e.js`: a segment of 8+
   * letters and digits before the extension), whatever `cacheControl` says.
   * Default `false`: only turn it on when every such name really is a
   * content hash.
   *
   * @param enabled Whether to mark fingerprinted files immutable.
   * @returns This builder.
   */
  immutableFingerprinted(enabled: boolean): this {
    this.#immutableFingerprinted = enabled;
    return this;
  }

  /**
   * Serves `.br` and `.gz` sidecar files when the client accepts them.
   * Default `false`.
   *
   * @param enabled Whether to look for sidecars.
   * @returns This builder.
   */
  preferPrecompressed(enabled: boolean): this {
    this.#preferPrecompressed = enabled;
    return this;
  }

  /**
   * Enables single-page mode: this file answers, with status 200, GET and
   * HEAD requests for extension-less paths that match no file and whose
   * `Accept` lists `text/html`. Excludes `notFoundFile`.
   *
   * @param file The shell's path below the roots, such as `index.html`.
   * @returns This builder.
   */
  spaFallback(file: string): this {
    this.#spaFallback = fallbackPath(file);
    return this;
  }

  /**
   * Sets the file that answers, with status 404, requests that match no
   * file. Excludes `spaFallback`.
   *
   * @param file The page's path below the roots, such as `404.html`.
   * @returns This builder.
   */
  notFoundFile(file: string): this {
    this.#notFoundFile = fallbackPath(file);
    return this;
  }

  /**
   * Sets the file names tried, in order, for a directory path. Default
   * `index.html`. No names: directories are never served.
   *
   * @param names File names, such as `index.html`, `index.htm`.
   * @returns This builder.
   */
  indexFiles(...names: string[]): this {
    for (const name of names) {
      if (name === "" || name.includes("/") || name.startsWith(".")) {
        throw new TypeError(
          `Cannot use index file "${name}": not a plain file name`,
        );
      }
    }
    this.#indexFiles = names;
    return this;
  }

  /**
   * Sets how long a file's `stat` is trusted before it is checked again.
   * Default 1000 ms; 0 checks on every request.
   *
   * @param ms Milliseconds.
   * @returns This builder.
   */
  statCacheTtl(ms: number): this {
    this.#statTtlMs = nonNegative("stat cache TTL", ms);
    return this;
  }

  /**
   * Sets the largest file held in memory. Default 256 KiB.
   *
   * @param bytes The size in bytes.
   * @returns This builder.
   */
  maxCachedFileSize(bytes: number): this {
    this.#maxCachedFileSize = nonNegative("max cached file size", bytes);
    return this;
  }

  /**
   * Sets the cap on the bytes all held files use together. Default 64 MiB.
   *
   * @param bytes The size in bytes.
   * @returns This builder.
   */
  memoryLimit(bytes: number): this {
    this.#memoryLimit = nonNegative("memory limit", bytes);
    return this;
  }

  /**
   * Replaces the function that fetches `https:` embedded files (for tests
   * and custom transports). Default: the global `fetch`.
   *
   * @param fn A `fetch`-compatible function.
   * @returns This builder.
   */
  fetchWith(fn: typeof fetch): this {
    this.#fetch = fn;
    return this;
  }

  /**
   * Checks the configuration and returns the handler.
   *
   * @returns The handler.
   * @throws {TypeError} When no root was added, or when both
   * `spaFallback` and `notFoundFile` are set.
   */
  build(): Handler {
    if (this.#roots.length === 0) {
      throw new TypeError("Cannot build static file handler: no root added");
    }
    if (this.#spaFallback !== undefined && this.#notFoundFile !== undefined) {
      throw new TypeError(
        "Cannot build static file handler: spaFallback and notFoundFile exclude each other",
      );
    }
    const cacheControl = this.#cacheControl;
    const immutable = this.#immutableFingerprinted;
    const settings: AssetSettings = {
      cacheControl: (path) =>
        immutable && isFingerprinted(path)
          ? IMMUTABLE_CACHE_CONTROL
          : cacheControl,
    };
    const memory: MemoryBudget = { used: 0, limit: this.#memoryLimit };
    const roots: Root[] = this.#roots.map((root) =>
      root.kind === "path"
        ? new FsRoot(root.dir, {
          settings,
          memory,
          preferPrecompressed: this.#preferPrecompressed,
          cacheInMemory: this.#cacheInMemory,
          maxCachedFileSize: this.#maxCachedFileSize,
          statTtlMs: this.#statTtlMs,
        })
        : new UrlRoot(root.url, {
          settings,
          memory,
          preferPrecompressed: this.#preferPrecompressed,
          fetch: this.#fetch,
        })
    );
    const server = new StaticServer(roots, {
      indexFiles: this.#indexFiles,
      spaFallback: this.#spaFallback,
      notFoundFile: this.#notFoundFile,
    });
    return (req) => server.handle(req);
  }
}

function fallbackPath(file: string): string {
  const path = resolvePath(file.startsWith("/") ? file : "/" + file);
  if (typeof path === "number" || path.endsWith("/") || path === "/") {
    throw new TypeError(
      `Cannot use fallback file "${file}": not a safe file path`,
    );
  }
  return path;
}

function nonNegative(what: string, value: number): number {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(
      `Cannot set ${what}: ${value} is not a non-negative number`,
    );
  }
  return value;
}

/** How a found file answers: as itself, as the single-page shell, or as
 * the not-found page. */
const Mode = { File: 0, Spa: 1, NotFound: 2 } as const;
type Mode = typeof Mode[keyof typeof Mode];

interface ServerSettings {
  indexFiles: readonly string[];
  spaFallback: string | undefined;
  notFoundFile: string | undefined;
}

type Reply = Response | Promise<Response>;

class StaticServer {
  #roots: Root[];
  #settings: ServerSettings;

  constructor(roots: Root[], settings: ServerSettings) {
    this.#roots = roots;
    this.#settings = settings;
  }

  handle(req: Request): Reply {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD") {
      // RFC 9110 section 15.5.6: 405 carries Allow.
      return plain(405, "Method Not Allowed", ["allow"], [ALLOW]);
    }
    const path = resolvePath(req.path);
    if (path === BAD_PATH) return plain(400, "Bad Request");
    // A hidden file is missing like any other (the 404 page may answer).
    if (typeof path === "number") return this.#miss(req, req.path);
    if (path.endsWith("/")) return this.#directory(req, path);
    // The index describes the files; it is not one of them.
    if (path === "/" + INDEX_FILE_NAME) return this.#miss(req, path);
    const found = this.#lookup(path, 0);
    return found instanceof Promise
      ? found.then((r) => this.#found(req, path, r))
      : this.#found(req, path, found);
  }

  #lookup(path: string, from: number): LookupResult | Promise<LookupResult> {
    const roots = this.#roots;
    for (let i = from; i < roots.length; i++) {
      const r = roots[i]!.lookup(path);
      if (r instanceof Promise) {
        return r.then((v) => v !== undefined ? v : this.#lookup(path, i + 1));
      }
      if (r !== undefined) return r;
    }
    return undefined;
  }

  #found(req: Request, path: string, found: LookupResult): Reply {
    if (found === undefined) return this.#miss(req, path);
    if (found !== DIRECTORY) return serve(req, found, Mode.File);
    return this.#indexOf(path + "/").then((asset) => {
      if (asset === undefined) return this.#miss(req, path);
      // A relative reference in the index page resolves against the slash
      // form, so send the client there (as nginx and Apache do). The
      // Location is rebuilt from the decoded path: never `//host`.
      const query = req.query;
      return new Response(null, {
        status: 301,
        headers: {
          location: encodePath(path) + "/" + (query === "" ? "" : "?" + query),
        },
      });
    });
  }

  async #indexOf(dir: string): Promise<Asset | undefined> {
    for (const name of this.#settings.indexFiles) {
      const found = await this.#lookup(dir + name, 0);
      if (found !== undefined && found !== DIRECTORY) return found;
    }
    return undefined;
  }

  async #directory(req: Request, dir: string): Promise<Response> {
    const asset = await this.#indexOf(dir);
    return asset === undefined
      ? this.#miss(req, dir)
      : serve(req, asset, Mode.File);
  }

  async #miss(req: Request, path: string): Promise<Response> {
    const { spaFallback, notFoundFile } = this.#settings;
    if (
      spaFallback !== undefined && !hasExtension(path) &&
      acceptsHtml(req.header("accept"))
    ) {
      const found = await this.#lookup(spaFallback, 0);
      if (found !== undefined && found !== DIRECTORY) {
        return serve(req, found, Mode.Spa);
      }
    } else if (notFoundFile !== undefined) {
      const found = await this.#lookup(notFoundFile, 0);
      if (found !== undefined && found !== DIRECTORY) {
        return serve(req, found, Mode.NotFound);
      }
    }
    return plain(404, "Not Found");
  }
}

function plain(
  status: number,
  text: string,
  names: readonly string[] = EMPTY_NAMES,
  values: readonly string[] = EMPTY_NAMES,
): Response {
  const headers = HttpHeaders.fromTrusted(
    ["content-type", ...names],
    ["text/plain; charset=utf-8", ...values],
  );
  return new Response(Body.of(text), { status, headers });
}

function choose(req: Request, asset: Asset): Variant {
  const sidecars = asset.sidecars;
  if (sidecars.length === 0) return asset.identity;
  // RFC 9110 section 12.5.3: the client's q-values decide; ties go to the
  // smaller coding (br before gzip) and identity comes last.
  const coding = AcceptEncoding.select(
    req.header("accept-encoding"),
    asset.codings,
  );
  for (let i = 0; i < sidecars.length; i++) {
    if (sidecars[i]!.coding === coding) return sidecars[i]!;
  }
  return asset.identity;
}

function serve(req: Request, asset: Asset, mode: Mode): Reply {
  const v = choose(req, asset);
  if (mode === Mode.NotFound) {
    const names: string[] = [];
    const values: string[] = [];
    for (let i = 0; i < v.names.length; i++) {
      const name = v.names[i]!;
      if (
        name === "etag" || name === "last-modified" || name === "accept-ranges"
      ) continue;
      names.push(name);
      values.push(name === "cache-control" ? NO_CACHE : v.values[i]!);
    }
    return full(req, v, 404, HttpHeaders.fromTrusted(names, values));
  }
  const headers = req.headers;
  const pre = evaluatePreconditions(headers, v.etag, v.lastModified);
  if (pre === Precondition.NotModified) {
    const res = new Response(Body.empty(), {
      status: 304,
      headers: HttpHeaders.fromTrusted(v.names304.slice(), v.values304.slice()),
    });
    if (mode === Mode.Spa) spaHeaders(res.headers);
    return res;
  }
  if (pre === Precondition.Failed) return plain(412, "Precondition Failed");
  const out = HttpHeaders.fromTrusted(v.names.slice(), v.values.slice());
  if (mode === Mode.Spa) spaHeaders(out);
  // RFC 9110 section 14.2: Range is defined for GET only.
  const range = req.method === "GET" ? headers.get("range") : undefined;
  if (range !== undefined) {
    const ifRange = headers.get("if-range");
    if (
      ifRange === undefined || ifRangeMatches(ifRange, v.etag, v.lastModified)
    ) {
      const ranges = parseRange(range, v.size);
      if (ranges === "unsatisfiable") {
        // RFC 9110 section 15.5.17: 416 says the current length.
        return plain(416, "Range Not Satisfiable", ["content-range"], [
          `bytes */${v.size}`,
        ]);
      }
      if (ranges !== null && ranges.length === 1) {
        const { start, end } = ranges[0]!;
        out.set("content-range", `bytes ${start}-${end}/${v.size}`);
        return slice(v, 206, out, start, end - start + 1);
      }
      if (ranges !== null) {
        const boundary = makeBoundary();
        const type = v.values[0]!;
        out.set("content-type", `multipart/byteranges; boundary=${boundary}`);
        const body = multipartBody(v.bytes ?? v.file!, {
          ranges,
          size: v.size,
          contentType: type,
          boundary,
        });
        return new Response(body, { status: 206, headers: out });
      }
    }
  }
  return full(req, v, 200, out);
}

function spaHeaders(headers: HttpHeaders): void {
  // The shell answers many URLs and changes with each deployment: caches
  // must revalidate it, and key it on Accept (an asset request gets 404).
  headers.set("cache-control", NO_CACHE);
  const vary = headers.get("vary");
  headers.set("vary", vary === undefined ? "Accept" : `Accept, ${vary}`);
}

function full(
  req: Request,
  v: Variant,
  status: number,
  headers: HttpHeaders,
): Reply {
  if (req.method === "HEAD") {
    if (v.bytes !== undefined) {
      return new Response(Body.of(v.bytes), { status, headers });
    }
    // RFC 9110 section 9.3.2: HEAD gets the GET's fields. The body declares
    // the length (the drivers send it as Content-Length) and holds nothing:
    // the drivers never send content for HEAD, so no file is opened.
    return new Response(Body.stream(NO_CONTENT, v.size), { status, headers });
  }
  return slice(v, status, headers, 0, v.size);
}

function slice(
  v: Variant,
  status: number,
  headers: HttpHeaders,
  offset: number,
  length: number,
): Reply {
  if (v.bytes !== undefined) {
    const bytes = offset === 0 && length === v.bytes.byteLength
      ? v.bytes
      : v.bytes.subarray(offset, offset + length);
    return new Response(Body.of(bytes), { status, headers });
  }
  return Deno.open(v.file!).then(
    (file) =>
      new Response(Body.file(file, { offset, length }), { status, headers }),
    // Removed since the last stat: as if it had never been there.
    () => plain(404, "Not Found"),
  );
}
