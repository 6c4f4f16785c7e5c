/**
 * The build step for static files: writes `static-index.json` (path → size,
 * content-hash ETag, modification time, sidecars) and precompressed `.gz` /
 * `.br` / `.zst` sidecars, which `staticFiles` then uses.
 *
 * @module
 */
import { DEFAULT_COMPRESS_THRESHOLD } from "./compress.ts";
import { MimeTypes } from "./mime_types.ts";
import { hashEtag, sha256 } from "./internal/static/etag.ts";
import { ZSTD_SUPPORTED } from "./internal/filters/encoders.ts";
import { loadZlib, type ZlibModule } from "./internal/node_builtins.ts";
import {
  formatIndex,
  INDEX_FILE_NAME,
  INDEX_VERSION,
  parseIndex,
  SIDECAR_CODINGS,
  SIDECAR_SUFFIXES,
  type StaticIndex,
  type StaticIndexEntry,
  type StaticIndexSidecar,
} from "./internal/static/index_format.ts";

export {
  INDEX_FILE_NAME,
  type StaticIndex,
  type StaticIndexEntry,
  type StaticIndexSidecar,
};

export { DEFAULT_COMPRESS_THRESHOLD };

/** The content codings the build step can produce (`zstd` where the
 * runtime's `node:zlib` has it, as Deno 2.9's does). */
export type SidecarCoding = "gzip" | "br" | "zstd";

/** Options of {@linkcode buildStaticIndex}. */
export interface BuildStaticIndexOptions {
  /** Sidecars to write for compressible files. Default none (index only). */
  compress?: readonly SidecarCoding[];
  /** Only files larger than this many bytes get sidecars. Default 1024. */
  threshold?: number;
}

/** What {@linkcode buildStaticIndex} did. */
export interface BuildStaticIndexResult {
  /** The index as written. */
  index: StaticIndex;
  /** How many files the index lists. */
  files: number;
  /** Files whose hash was computed (new or changed). */
  hashed: number;
  /** Sidecars written (new, or their file changed). */
  sidecarsWritten: number;
  /** Sidecars deleted because they were stale and would not be rewritten. */
  sidecarsRemoved: number;
  /** Whether `static-index.json` was (re)written. */
  indexWritten: boolean;
}

/** The zstd level of sidecars: 19 is the highest level that needs no more
 * memory to decode than the default (levels 20-22 need a larger window). */
const ZSTD_LEVEL = 19;

/**
 * Indexes a directory and writes precompressed sidecars, for
 * `staticFiles` to serve with content-hash ETags and O(1)
 * lookups. Re-running it is idempotent: unchanged files (same size and
 * modification time as indexed) are neither re-hashed nor re-compressed, and
 * the index is rewritten only when its content changes.
 *
 * - Dotfiles and dot-directories are skipped (the handler never serves
 *   them), and so is the index itself.
 * - A `.gz` / `.br` file next to a file of the same name without the suffix
 *   is that file's sidecar, not a file of its own.
 * - Sidecars are made with maximum compression (gzip level 9, brotli
 *   quality 11, zstd level 19) for compressible types above the threshold,
 *   and kept only when smaller than the file. A stale sidecar of a requested coding that
 *   is no longer worth writing is deleted.
 * - A sidecar of a coding not requested (made by another tool) is listed
 *   when it is no older than its file, so it can be served.
 *
 * @param dir The directory to index.
 * @param options Which sidecars to write and above which size.
 * @returns What was done.
 *
 * @example Index a directory
 * ```ts
 * import { buildStaticIndex } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/app.js`, "console.log('hi');\n".repeat(200));
 * const first = await buildStaticIndex(dir, { compress: ["gzip", "br"] });
 * assert.equal(first.files, 1);
 * assert.equal(first.sidecarsWritten, 2);
 * assert.ok(first.index.files["/app.js"]!.sidecars!.br);
 *
 * const second = await buildStaticIndex(dir, { compress: ["gzip", "br"] });
 * assert.equal(second.indexWritten, false);
 * assert.equal(second.hashed, 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function buildStaticIndex(
  dir: string,
  options?: BuildStaticIndexOptions,
): Promise<BuildStaticIndexResult> {
  const compress = options?.compress ?? [];
  for (const coding of compress) {
    if (!Object.hasOwn(SIDECAR_SUFFIXES, coding)) {
      throw new TypeError(
        `Cannot compress with "${coding}": unsupported coding`,
      );
    }
    if (coding === "zstd" && !ZSTD_SUPPORTED) {
      throw new TypeError(
        'Cannot compress with "zstd": this runtime\'s node:zlib has no zstd',
      );
    }
  }
  const threshold = options?.threshold ?? DEFAULT_COMPRESS_THRESHOLD;
  if (!(threshold >= 0) || !Number.isFinite(threshold)) {
    throw new RangeError(
      `Cannot use threshold ${threshold}: not a non-negative number`,
    );
  }
  // Only a build that compresses needs node:zlib.
  const zlib = compress.length > 0 ? await loadZlib() : undefined;
  const root = dir.endsWith("/") && dir.length > 1 ? dir.slice(0, -1) : dir;
  const indexPath = `${root}/${INDEX_FILE_NAME}`;
  const oldText = await Deno.readTextFile(indexPath).catch(() => "");
  const old = parseIndex(oldText)?.files ?? {};

  const found = new Map<string, Deno.FileInfo>();
  await walk(root, "", found);
  const result: BuildStaticIndexResult = {
    index: { version: INDEX_VERSION, files: {} },
    files: 0,
    hashed: 0,
    sidecarsWritten: 0,
    sidecarsRemoved: 0,
    indexWritten: false,
  };
  // Sidecars we wrote for files that are gone: remove them.
  for (const [path, entry] of Object.entries(old)) {
    if (found.has(path) || entry.sidecars === undefined) continue;
    for (const coding in entry.sidecars) {
      const sidecar = path + SIDECAR_SUFFIXES[coding];
      if (!found.has(sidecar)) continue;
      await Deno.remove(root + sidecar);
      found.delete(sidecar);
      result.sidecarsRemoved++;
    }
  }
  const paths = [...found.keys()].filter((path) => !isSidecarOf(path, found))
    .sort();
  for (const path of paths) {
    const entry = await indexFile(root, path, found.get(path)!, old[path], {
      compress,
      zlib,
      threshold,
      found,
      result,
    });
    result.index.files[path] = entry;
    result.files++;
  }
  const text = formatIndex(result.index);
  if (text !== oldText) {
    await Deno.writeTextFile(indexPath, text);
    result.indexWritten = true;
  }
  return result;
}

interface IndexContext {
  compress: readonly string[];
  /** Loaded when `compress` lists a coding. */
  zlib: ZlibModule | undefined;
  threshold: number;
  found: Map<string, Deno.FileInfo>;
  result: BuildStaticIndexResult;
}

async function indexFile(
  root: string,
  path: string,
  stat: Deno.FileInfo,
  old: StaticIndexEntry | undefined,
  ctx: IndexContext,
): Promise<StaticIndexEntry> {
  const file = root + path;
  const mtimeMs = mtimeOf(stat);
  const unchanged = old !== undefined && old.size === stat.size &&
    old.mtimeMs === mtimeMs;
  let bytes: Uint8Array | undefined;
  let digest: string;
  if (unchanged) {
    digest = old.sha256;
  } else {
    bytes = await Deno.readFile(file);
    digest = await sha256(bytes);
    ctx.result.hashed++;
  }
  const entry: StaticIndexEntry = {
    size: stat.size,
    mtimeMs,
    sha256: digest,
    etag: hashEtag(digest),
  };
  const sidecars: Record<string, StaticIndexSidecar> = {};
  const worth = stat.size > ctx.threshold &&
    MimeTypes.isCompressible(MimeTypes.detect(path));
  for (const coding of SIDECAR_CODINGS) {
    const sidecarPath = path + SIDECAR_SUFFIXES[coding];
    const existing = ctx.found.get(sidecarPath);
    const oldSidecar = unchanged ? old.sidecars?.[coding] : undefined;
    if (ctx.compress.includes(coding)) {
      if (!worth) {
        // A sidecar we wrote for an earlier version: remove it.
        if (existing !== undefined && old?.sidecars?.[coding] !== undefined) {
          await Deno.remove(root + sidecarPath);
          ctx.result.sidecarsRemoved++;
        }
        continue;
      }
      if (
        existing !== undefined && oldSidecar !== undefined &&
        oldSidecar.size === existing.size &&
        oldSidecar.mtimeMs === mtimeOf(existing) &&
        mtimeOf(existing) >= mtimeMs
      ) {
        sidecars[coding] = oldSidecar;
        continue;
      }
      bytes ??= await Deno.readFile(file);
      const packed = await compressWith(ctx.zlib!, coding, bytes);
      if (packed.byteLength >= bytes.byteLength) {
        if (existing !== undefined && old?.sidecars?.[coding] !== undefined) {
          await Deno.remove(root + sidecarPath);
          ctx.result.sidecarsRemoved++;
        }
        continue;
      }
      await Deno.writeFile(root + sidecarPath, packed);
      let written = await Deno.stat(root + sidecarPath);
      if (mtimeOf(written) < mtimeMs) {
        // The file's time is in the future (clock skew, an archive): give
        // the sidecar the same time, or the handler would think it stale.
        await Deno.utime(root + sidecarPath, new Date(), new Date(mtimeMs));
        written = await Deno.stat(root + sidecarPath);
      }
      ctx.result.sidecarsWritten++;
      sidecars[coding] = {
        size: written.size,
        mtimeMs: mtimeOf(written),
        sha256: await sha256(packed),
      };
    } else if (existing !== undefined && mtimeOf(existing) >= mtimeMs) {
      // Another tool's sidecar, fresh: list it so it can be served.
      const same = oldSidecar !== undefined &&
        oldSidecar.size === existing.size &&
        oldSidecar.mtimeMs === mtimeOf(existing);
      sidecars[coding] = same ? oldSidecar : {
        size: existing.size,
        mtimeMs: mtimeOf(existing),
        sha256: await sha256(await Deno.readFile(root + sidecarPath)),
      };
    }
  }
  if (Object.keys(sidecars).length > 0) entry.sidecars = sidecars;
  return entry;
}

function compressWith(
  zlib: ZlibModule,
  coding: string,
  bytes: Uint8Array,
): Promise<Uint8Array> {
  const c = zlib.constants;
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, out: Uint8Array) =>
      error === null ? resolve(out) : reject(error);
    if (coding === "gzip") {
      zlib.gzip(bytes, { level: c.Z_BEST_COMPRESSION }, done);
    } else if (coding === "zstd") {
      zlib.zstdCompress(bytes, {
        params: {
          [c.ZSTD_c_compressionLevel]: ZSTD_LEVEL,
          [c.ZSTD_c_checksumFlag]: 1,
        },
      }, done);
    } else {
      zlib.brotliCompress(bytes, {
        params: {
          [c.BROTLI_PARAM_QUALITY]: c.BROTLI_MAX_QUALITY,
          [c.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
          [c.BROTLI_PARAM_MODE]: c.BROTLI_MODE_TEXT,
        },
      }, done);
    }
  });
}

function mtimeOf(stat: Deno.FileInfo): number {
  return Math.floor(stat.mtime?.getTime() ?? 0);
}

function isSidecarOf(path: string, found: Map<string, Deno.FileInfo>): boolean {
  for (const coding of SIDECAR_CODINGS) {
    const suffix = SIDECAR_SUFFIXES[coding]!;
    if (path.endsWith(suffix) && found.has(path.slice(0, -suffix.length))) {
      return true;
    }
  }
  return false;
}

async function walk(
  root: string,
  rel: string,
  out: Map<string, Deno.FileInfo>,
): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(root + rel)) entries.push(entry);
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = `${rel}/${entry.name}`;
    if (path === "/" + INDEX_FILE_NAME) continue;
    // Symlinks are followed only when they stay files or directories; the
    // handler checks containment itself.
    const stat = await Deno.stat(root + path).catch(() => undefined);
    if (stat === undefined) continue;
    if (stat.isDirectory && !entry.isSymlink) await walk(root, path, out);
    else if (stat.isFile) out.set(path, stat);
  }
}
