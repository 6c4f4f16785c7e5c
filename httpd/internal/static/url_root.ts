/**
 * Files shipped with a module and reached by a remote URL (`https:` when
 * the package runs from JSR): fetched once, then served from memory.
 *
 * @module
 */
import { type AssetSettings, makeAsset, type VariantFacts } from "./asset.ts";
import { hashEtag, sha256 } from "./etag.ts";
import { parseHttpDate } from "./http_date.ts";
import {
  INDEX_FILE_NAME,
  parseIndex,
  SIDECAR_CODINGS,
  SIDECAR_SUFFIXES,
  type StaticIndexEntry,
} from "./index_format.ts";
import { MimeTypes } from "../../mime_types.ts";
import { hasExtension } from "./path.ts";
import {
  DIRECTORY,
  type LookupResult,
  type MemoryBudget,
  type Root,
} from "./root.ts";

/** At most this many missing paths are remembered, so a scan of random
 * URLs cannot grow memory; the found files are bounded by the budget. */
export const MAX_REMEMBERED_MISSES = 1_000;

/** Settings of {@linkcode UrlRoot}. */
export interface UrlRootOptions {
  /** Response settings shared by every asset. */
  settings: AssetSettings;
  /** Offer sidecars listed in the base's static index. */
  preferPrecompressed: boolean;
  /** The memory cap shared with the handler's other roots. */
  memory: MemoryBudget;
  /** The fetch function (replaceable in tests). */
  fetch: typeof fetch;
}

/** Serves files below a base URL, caching them in memory. */
export class UrlRoot implements Root {
  #base: URL;
  #options: UrlRootOptions;
  #found = new Map<string, LookupResult | Promise<LookupResult>>();
  #misses = new Map<string, string>();
  #index: Promise<Map<string, StaticIndexEntry> | undefined> | undefined;

  /**
   * Creates a root.
   *
   * @param base The base URL, ending with `/`.
   * @param options The handler's settings.
   */
  constructor(base: URL, options: UrlRootOptions) {
    this.#base = base;
    this.#options = options;
  }

  /**
   * Finds a path, fetching it the first time.
   *
   * @param path A decoded, safe path starting with `/`.
   * @returns What is there.
   */
  lookup(path: string): LookupResult | Promise<LookupResult> {
    const miss = this.#misses.get(path);
    if (miss !== undefined) return miss === DIRECTORY ? DIRECTORY : undefined;
    const hit = this.#found.get(path);
    if (hit !== undefined) return hit;
    const pending = this.#load(path).then((value) => {
      if (value === undefined || value === DIRECTORY) {
        // Misses (and guessed directories) are bounded; files are bounded
        // by the memory budget.
        this.#found.delete(path);
        if (this.#misses.size >= MAX_REMEMBERED_MISSES) this.#misses.clear();
        this.#misses.set(path, value ?? "");
      } else {
        this.#found.set(path, value);
      }
      return value;
    }, () => {
      this.#found.delete(path); // A network failure is retried next time.
      return undefined;
    });
    this.#found.set(path, pending);
    return pending;
  }

  async #load(path: string): Promise<LookupResult> {
    const index = await (this.#index ??= this.#loadIndex());
    const entry = index?.get(path);
    if (index !== undefined && entry === undefined) {
      // A directory is a prefix of listed files; the handler then looks
      // for its index file.
      const prefix = path + "/";
      for (const key of index.keys()) {
        if (key.startsWith(prefix)) return DIRECTORY;
      }
      return undefined;
    }
    const got = await this.#get(path, entry?.size);
    // Without an index, an extension-less miss may be a directory.
    if (got === undefined) return hasExtension(path) ? undefined : DIRECTORY;
    const digest = await sha256(got.bytes);
    // An index entry whose hash differs describes another version: its
    // sidecars belong to that version and are not offered.
    const current = entry !== undefined && entry.sha256 === digest
      ? entry
      : undefined;
    const identity: VariantFacts = {
      coding: undefined,
      size: got.bytes.byteLength,
      etag: hashEtag(digest),
      mtimeMs: got.lastModified,
      bytes: got.bytes,
    };
    const sidecars: VariantFacts[] = [];
    if (this.#options.preferPrecompressed && current?.sidecars) {
      for (const coding of SIDECAR_CODINGS) {
        const listed = current.sidecars[coding];
        if (listed === undefined) continue;
        const side = await this.#get(
          path + SIDECAR_SUFFIXES[coding],
          listed.size,
        );
        if (
          side === undefined || (await sha256(side.bytes)) !== listed.sha256
        ) {
          continue;
        }
        sidecars.push({
          coding,
          size: side.bytes.byteLength,
          etag: hashEtag(listed.sha256),
          mtimeMs: got.lastModified,
          bytes: side.bytes,
        });
      }
    }
    this.#options.memory.used += sidecars.reduce(
      (n, v) => n + v.size,
      identity.size,
    );
    return makeAsset(
      path,
      MimeTypes.detect(path),
      identity,
      sidecars,
      this.#options.settings,
    );
  }

  async #get(
    path: string,
    expected: number | undefined,
  ): Promise<{ bytes: Uint8Array; lastModified: number } | undefined> {
    const memory = this.#options.memory;
    if (expected !== undefined && memory.used + expected > memory.limit) {
      return undefined;
    }
    // "./" keeps a first segment such as "a:b" from reading as a scheme.
    const url = new URL("." + encodePath(path), this.#base);
    // The path is decoded and free of dot segments, so this cannot happen;
    // checked anyway because it is the containment guarantee.
    if (!url.href.startsWith(this.#base.href)) return undefined;
    const res = await this.#options.fetch(url);
    if (!res.ok) {
      await res.body?.cancel();
      if (res.status === 404 || res.status === 410) return undefined;
      throw new Error(`Cannot fetch "${url.href}": status ${res.status}`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (memory.used + bytes.byteLength > memory.limit) return undefined;
    const header = res.headers.get("last-modified");
    const seconds = header === null ? NaN : parseHttpDate(header);
    return { bytes, lastModified: seconds * 1000 };
  }

  async #loadIndex(): Promise<Map<string, StaticIndexEntry> | undefined> {
    try {
      const res = await this.#options.fetch(
        new URL(INDEX_FILE_NAME, this.#base),
      );
      if (!res.ok) {
        await res.body?.cancel();
        return undefined;
      }
      const index = parseIndex(await res.text());
      return index === undefined
        ? undefined
        : new Map(Object.entries(index.files));
    } catch {
      return undefined;
    }
  }
}

/**
 * Percent-encodes each segment of a decoded path.
 *
 * @param path A decoded path starting with `/`.
 * @returns The encoded path.
 */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}
