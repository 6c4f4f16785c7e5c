/**
 * The static handler's request flow: method and path checks, the lookup in
 * the roots, the redirect of a directory to its slash form, index files,
 * and what answers a miss (the single-page shell, the not-found page or a
 * plain 404).
 *
 * @module
 */
import type { Handler } from "../../handler.ts";
import type { Request } from "../../request.ts";
import { Response } from "../../response.ts";
import { acceptsHtml } from "./accept_html.ts";
import { answer, Mode } from "./answer.ts";
import type { AssetSettings } from "./asset.ts";
import { IMMUTABLE_CACHE_CONTROL, isFingerprinted } from "./fingerprint.ts";
import { listDirectory, listingResponse } from "./list_response.ts";
import { FsRoot } from "./fs_root.ts";
import { INDEX_FILE_NAME } from "./index_format.ts";
import { lookup, lookupFile, lookupIndex } from "./lookup.ts";
import type { DotfilesMode, StaticSettings } from "./options.ts";
import { BAD_PATH, hasExtension, resolvePath } from "./path.ts";
import { plain, type Reply } from "./reply.ts";
import {
  DIRECTORY,
  type LookupResult,
  type MemoryBudget,
  type Root,
} from "./root.ts";
import { encodePath, UrlRoot } from "./url_root.ts";

const ALLOW = "GET, HEAD";

/** A 301 to `location` with the request's query. */
function redirect(location: string, query: string): Response {
  return new Response(null, {
    status: 301,
    headers: { location: query === "" ? location : location + "?" + query },
  });
}

/**
 * Makes the handler for checked settings: one root per setting, sharing one
 * memory budget.
 *
 * @param settings The settings, from `resolveStaticFileOptions`.
 * @returns The handler.
 */
export function createStaticHandler(settings: StaticSettings): Handler {
  const { cacheControl, cacheRules, immutableFingerprinted } = settings;
  const assets: AssetSettings = {
    cacheControl: (path) => {
      for (const rule of cacheRules) {
        if (rule.pattern.test(path)) return rule.cacheControl;
      }
      return immutableFingerprinted && isFingerprinted(path)
        ? IMMUTABLE_CACHE_CONTROL
        : cacheControl;
    },
  };
  const memory: MemoryBudget = { used: 0, limit: settings.memoryLimit };
  const roots: Root[] = settings.roots.map((root) =>
    root.kind === "path"
      ? new FsRoot(root.dir, {
        settings: assets,
        memory,
        preferPrecompressed: settings.preferPrecompressed,
        cacheInMemory: settings.cacheInMemory,
        maxCachedFileSize: settings.maxCachedFileSize,
        statTtlMs: settings.statCacheTtlMs,
      })
      : new UrlRoot(root.url, {
        settings: assets,
        memory,
        preferPrecompressed: settings.preferPrecompressed,
        fetch: settings.fetch,
      })
  );
  const handler = new StaticHandler(roots, settings);
  return (req) => handler.handle(req);
}

/** What {@linkcode StaticHandler} needs beyond its roots. */
export interface StaticHandlerSettings {
  /** Index file names tried for a directory path. */
  readonly indexFiles: readonly string[];
  /** The single-page shell's decoded path. */
  readonly spaFallback: string | undefined;
  /** The not-found page's decoded path. */
  readonly notFoundFile: string | undefined;
  /** Answer a directory without an index file with a listing. */
  readonly directoryListing: boolean;
  /** What dot segments do. */
  readonly dotfiles: DotfilesMode;
  /** The URL path the files are under, as sent; `""` for none. */
  readonly urlPrefix: string;
}

/** Answers requests from a list of roots. */
export class StaticHandler {
  #roots: readonly Root[];
  #settings: StaticHandlerSettings;

  /**
   * Creates the handler.
   *
   * @param roots The roots, in search order.
   * @param settings Index files and fallbacks.
   */
  constructor(roots: readonly Root[], settings: StaticHandlerSettings) {
    this.#roots = roots;
    this.#settings = settings;
  }

  /**
   * Answers a request.
   *
   * @param req The request.
   * @returns The response, synchronously when the file is cached.
   */
  handle(req: Request): Reply {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD") {
      // RFC 9110 section 15.5.6: 405 carries Allow.
      return plain(405, "Method Not Allowed", ["allow"], [ALLOW]);
    }
    let raw = req.path;
    let base = req.basePath;
    const prefix = this.#settings.urlPrefix;
    if (prefix !== "") {
      if (!raw.startsWith(prefix)) return plain(404, "Not Found");
      if (raw.length === prefix.length) {
        // Relative references below the prefix need its slash form.
        return redirect(base + prefix + "/", req.query);
      }
      if (raw.charCodeAt(prefix.length) !== 0x2f) {
        return plain(404, "Not Found");
      }
      raw = raw.slice(prefix.length);
      base += prefix;
    }
    const dotfiles = this.#settings.dotfiles;
    const path = resolvePath(raw, dotfiles === "allow");
    if (path === BAD_PATH) return plain(400, "Bad Request");
    if (typeof path === "number") {
      if (dotfiles === "deny") return plain(403, "Forbidden");
      // A hidden file is missing like any other (the 404 page may answer).
      return this.#miss(req, raw);
    }
    if (path.endsWith("/")) return this.#directory(req, path, base);
    // The index describes the files; it is not one of them.
    if (path === "/" + INDEX_FILE_NAME) return this.#miss(req, path);
    const found = lookup(this.#roots, path);
    return found instanceof Promise
      ? found.then((r) => this.#found(req, path, base, r))
      : this.#found(req, path, base, found);
  }

  #found(
    req: Request,
    path: string,
    base: string,
    found: LookupResult,
  ): Reply {
    if (found === undefined) return this.#miss(req, path);
    if (found !== DIRECTORY) return answer(req, found, Mode.File);
    const { indexFiles, directoryListing } = this.#settings;
    return lookupIndex(this.#roots, path + "/", indexFiles).then((asset) => {
      if (asset === undefined && !directoryListing) {
        return this.#miss(req, path);
      }
      // A relative reference in the index page resolves against the slash
      // form, so send the client there (as nginx and Apache do). The
      // Location is rebuilt from the decoded path: never `//host`; the
      // prefix above the files (`base`) is kept as sent.
      return redirect(base + encodePath(path) + "/", req.query);
    });
  }

  async #directory(
    req: Request,
    dir: string,
    base: string,
  ): Promise<Response> {
    const { indexFiles, directoryListing, dotfiles } = this.#settings;
    const asset = await lookupIndex(this.#roots, dir, indexFiles);
    if (asset !== undefined) return answer(req, asset, Mode.File);
    if (directoryListing) {
      const listing = await listDirectory(
        this.#roots,
        dir,
        dotfiles === "allow",
      );
      if (listing !== undefined) {
        return listingResponse(req, decodeBase(base) + dir, listing);
      }
    }
    return this.#miss(req, dir);
  }

  async #miss(req: Request, path: string): Promise<Response> {
    const { spaFallback, notFoundFile } = this.#settings;
    if (
      spaFallback !== undefined && !hasExtension(path) &&
      acceptsHtml(req.header("accept"))
    ) {
      const shell = await lookupFile(this.#roots, spaFallback);
      if (shell !== undefined) return answer(req, shell, Mode.Spa);
    } else if (notFoundFile !== undefined) {
      const page = await lookupFile(this.#roots, notFoundFile);
      if (page !== undefined) return answer(req, page, Mode.NotFound);
    }
    return plain(404, "Not Found");
  }
}

// The part of the path above the files, as a person reads it.
function decodeBase(base: string): string {
  try {
    return decodeURIComponent(base);
  } catch {
    return base; // Shown as sent.
  }
}
