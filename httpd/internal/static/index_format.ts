/**
 * The static index file, `static-index.json`: what the build step writes and
 * the handler reads.
 *
 * @module
 */

/** The index's file name, at the top of the directory it describes. */
export const INDEX_FILE_NAME = "static-index.json";
/** The format version this code writes and reads. */
export const INDEX_VERSION = 1;
/** Content codings the index can list sidecars for, best first, with the
 * sidecar's file suffix. */
export const SIDECAR_SUFFIXES: Readonly<Record<string, string>> = {
  zstd: ".zst",
  br: ".br",
  gzip: ".gz",
};
/** The codings of {@linkcode SIDECAR_SUFFIXES}, in the order they win ties
 * of the client's q-values: zstd decodes several times faster than brotli
 * at a size close to it, and both beat gzip. */
export const SIDECAR_CODINGS: readonly string[] = ["zstd", "br", "gzip"];

/** A precompressed copy of a file, as recorded in the index. */
export interface StaticIndexSidecar {
  /** The sidecar's size in bytes. */
  size: number;
  /** The sidecar's modification time, whole milliseconds since the epoch. */
  mtimeMs: number;
  /** The base64url SHA-256 digest of the sidecar's bytes. */
  sha256: string;
}

/** One file of the index. */
export interface StaticIndexEntry {
  /** The size in bytes. */
  size: number;
  /** The modification time, whole milliseconds since the epoch. */
  mtimeMs: number;
  /** The base64url SHA-256 digest of the file's bytes. */
  sha256: string;
  /** The strong ETag served for the file, derived from `sha256`. */
  etag: string;
  /** Precompressed sidecars by content coding (`zstd`, `br`, `gzip`). */
  sidecars?: Record<string, StaticIndexSidecar>;
}

/** The whole index: URL path (decoded, starting with `/`) to file facts. */
export interface StaticIndex {
  /** The format version, 1. */
  version: number;
  /** The files, keyed by URL path such as `/assets/app.js`. */
  files: Record<string, StaticIndexEntry>;
}

/**
 * Reads and checks an index from its JSON text. A malformed index is not
 * an error worth failing a request over: the caller falls back to the disk.
 *
 * @param text The file's content.
 * @returns The index, or `undefined` when it is not a valid version-1 index.
 */
export function parseIndex(text: string): StaticIndex | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const index = value as Partial<StaticIndex>;
  if (index.version !== INDEX_VERSION) return undefined;
  if (typeof index.files !== "object" || index.files === null) return undefined;
  for (const key in index.files) {
    const e = index.files[key] as Partial<StaticIndexEntry>;
    if (
      !key.startsWith("/") || typeof e !== "object" || e === null ||
      typeof e.size !== "number" || typeof e.mtimeMs !== "number" ||
      typeof e.sha256 !== "string" || typeof e.etag !== "string"
    ) return undefined;
    if (e.sidecars !== undefined) {
      if (typeof e.sidecars !== "object" || e.sidecars === null) {
        return undefined;
      }
      for (const coding in e.sidecars) {
        const s = e.sidecars[coding] as Partial<StaticIndexSidecar>;
        if (
          !Object.hasOwn(SIDECAR_SUFFIXES, coding) || typeof s !== "object" ||
          s === null || typeof s.size !== "number" ||
          typeof s.mtimeMs !== "number" || typeof s.sha256 !== "string"
        ) return undefined;
      }
    }
  }
  return index as StaticIndex;
}

/**
 * Returns the index as stable, diff-friendly JSON: keys sorted, one file
 * per line group, a final newline.
 *
 * @param index The index.
 * @returns The file content.
 */
export function formatIndex(index: StaticIndex): string {
  const files: Record<string, StaticIndexEntry> = {};
  for (const key of Object.keys(index.files).sort()) {
    files[key] = index.files[key]!;
  }
  return JSON.stringify({ version: index.version, files }, null, 2) + "\n";
}
