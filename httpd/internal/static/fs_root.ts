/**
 * Files in a directory on disk, with a short-lived cache of what `stat`,
 * `realPath` and the static index said, so a hot file costs no system call.
 *
 * @module
 */
import { type AssetSettings, makeAsset, type VariantFacts } from "./asset.ts";
import { hashEtag, sha256File, statEtag } from "./etag.ts";
import {
  INDEX_FILE_NAME,
  parseIndex,
  SIDECAR_CODINGS,
  SIDECAR_SUFFIXES,
  type StaticIndexEntry,
} from "./index_format.ts";
import {
  type Listing,
  type ListingEntry,
  MAX_LISTING_ENTRIES,
} from "./listing.ts";
import { MimeTypes } from "../../mime_types.ts";
import { cacheNow, isFresh } from "./stat_clock.ts";
import {
  DIRECTORY,
  type LookupResult,
  type MemoryBudget,
  type Root,
} from "./root.ts";

/** At most this many paths are remembered (found or not); beyond it the
 * oldest are forgotten, so a scan of random URLs cannot grow memory. */
export const MAX_CACHED_PATHS = 10_000;

/** How many entries of a listed directory are stat'ed at once. */
const LISTING_STAT_BATCH = 64;

/** Settings of {@linkcode FsRoot}. */
export interface FsRootOptions {
  /** Response settings shared by every asset. */
  settings: AssetSettings;
  /** Look for `.zst` / `.br` / `.gz` sidecars. */
  preferPrecompressed: boolean;
  /** Hold small files in memory. */
  cacheInMemory: boolean;
  /** The largest file held in memory. */
  maxCachedFileSize: number;
  /** How long a stat result is trusted, in milliseconds. */
  statTtlMs: number;
  /** The memory cap shared with the handler's other roots. */
  memory: MemoryBudget;
}

interface Slot {
  value: LookupResult | Promise<LookupResult>;
  /** When the stat behind `value` was taken; `-Infinity` while pending. */
  loaded: number;
  /** Until when `value` is trusted; `Infinity` while pending. */
  expires: number;
  /** `size:mtime` of each variant held, by coding ("" for identity). */
  stamps?: Map<string, string>;
  /** Bytes of each variant held in memory, by coding. */
  held?: Map<string, Uint8Array>;
}

// Digests of file versions (sidecars checked against the index, files
// without a modification time), by path and stamp: each version is hashed
// once, not once per request. Bounded; cleared whole when full.
const digests = new Map<string, string>();
const MAX_DIGESTS = 10_000;

/** Serves files below one directory. */
export class FsRoot implements Root {
  #dir: string;
  #options: FsRootOptions;
  #real: string | undefined;
  #slots = new Map<string, Slot>();
  #index: Map<string, StaticIndexEntry> | undefined;
  #indexStamp = "";
  #indexCheckedAt = Infinity;
  #indexCheckedUntil = -Infinity;
  #checking: Promise<string | undefined> | undefined;

  /**
   * Creates a root.
   *
   * @param dir The directory, absolute, without a trailing slash.
   * @param options The handler's settings.
   */
  constructor(dir: string, options: FsRootOptions) {
    this.#dir = dir.length > 1 && dir.endsWith("/") ? dir.slice(0, -1) : dir;
    this.#options = options;
  }

  /**
   * Finds a path, from the cache when it is fresh.
   *
   * @param path A decoded, safe path starting with `/`.
   * @returns What is there.
   */
  lookup(path: string): LookupResult | Promise<LookupResult> {
    const slot = this.#slots.get(path);
    const now = cacheNow();
    if (slot !== undefined && isFresh(slot.loaded, slot.expires, now)) {
      return slot.value;
    }
    const next: Slot = {
      value: undefined,
      loaded: -Infinity,
      expires: Infinity,
    };
    this.#put(path, next, slot);
    const pending = this.#load(path, slot, next, now);
    next.value = pending;
    return pending;
  }

  /**
   * Reads a directory for a listing.
   *
   * @param dir A decoded, safe directory path ending with `/`.
   * @param hidden Whether to include names starting with `.`.
   * @returns The entries, or `undefined` when there is no such directory
   * inside the root.
   */
  async list(dir: string, hidden: boolean): Promise<Listing | undefined> {
    const real = await this.#realRoot(cacheNow());
    if (real === undefined) return undefined;
    let resolved: string;
    const found: Deno.DirEntry[] = [];
    let truncated = false;
    try {
      resolved = await Deno.realPath(this.#dir + dir);
      if (!inside(resolved, real)) return undefined;
      for await (const entry of Deno.readDir(resolved)) {
        if (!hidden && entry.name.startsWith(".")) continue;
        if (dir === "/" && entry.name === INDEX_FILE_NAME) continue;
        if (found.length === MAX_LISTING_ENTRIES) {
          truncated = true;
          break;
        }
        found.push(entry);
      }
    } catch {
      return undefined; // Not a directory, gone, or not readable.
    }
    const names = new Set(found.map((entry) => entry.name));
    const shown = this.#options.preferPrecompressed
      ? found.filter((entry) => !isSidecarBeside(entry.name, names))
      : found;
    const entries: ListingEntry[] = [];
    for (let i = 0; i < shown.length; i += LISTING_STAT_BATCH) {
      const batch = shown.slice(i, i + LISTING_STAT_BATCH).map((entry) =>
        listingEntry(`${resolved}/${entry.name}`, entry, real)
      );
      for (const entry of await Promise.all(batch)) {
        if (entry !== undefined) entries.push(entry);
      }
    }
    return { entries, truncated };
  }

  /** Forgets everything cached, releasing the memory it held. */
  clear(): void {
    for (const slot of this.#slots.values()) this.#release(slot);
    this.#slots.clear();
  }

  #put(path: string, slot: Slot, old: Slot | undefined): void {
    if (old !== undefined) this.#slots.delete(path);
    this.#slots.set(path, slot);
    if (this.#slots.size > MAX_CACHED_PATHS) {
      const oldest = this.#slots.keys().next().value!;
      const evicted = this.#slots.get(oldest)!;
      this.#slots.delete(oldest);
      this.#release(evicted);
    }
  }

  #release(slot: Slot): void {
    if (slot.held === undefined) return;
    for (const bytes of slot.held.values()) {
      this.#options.memory.used -= bytes.byteLength;
    }
    slot.held = undefined;
  }

  async #load(
    path: string,
    old: Slot | undefined,
    slot: Slot,
    now: number,
  ): Promise<LookupResult> {
    let value: LookupResult;
    try {
      value = await this.#find(path, old, slot, now);
    } catch {
      value = undefined; // Permission denied, I/O error: not servable, not a 500.
    }
    // Only fill the slot that asked: a clear() meanwhile dropped it.
    if (this.#slots.get(path) === slot) {
      const at = cacheNow();
      slot.value = value;
      slot.loaded = at;
      slot.expires = at + this.#options.statTtlMs;
    } else {
      this.#release(slot);
    }
    if (old !== undefined && old !== slot) this.#release(old);
    return value;
  }

  async #find(
    path: string,
    old: Slot | undefined,
    slot: Slot,
    now: number,
  ): Promise<LookupResult> {
    const real = await this.#realRoot(now);
    if (real === undefined) return undefined;
    const abs = this.#dir + path;
    const stat = await statOrUndefined(abs);
    if (stat === undefined) return undefined;
    if (!stat.isDirectory && !stat.isFile) return undefined;
    const resolved = await Deno.realPath(abs);
    // Containment: a symlink may not lead outside the root, whatever it
    // leads to. A directory out there is as absent as a file: else its
    // redirect to the slash form (301 against 404) tells a client which
    // directories exist outside the root.
    if (!inside(resolved, real)) return undefined;
    if (stat.isDirectory) return DIRECTORY;
    const mtimeMs = Math.floor(stat.mtime?.getTime() ?? NaN);
    const entry = this.#index?.get(path);
    const indexed = entry !== undefined && entry.size === stat.size &&
      entry.mtimeMs === mtimeMs;
    const stamps = new Map<string, string>();
    const held = new Map<string, Uint8Array>();
    slot.stamps = stamps;
    slot.held = held;
    let etag: string;
    if (indexed) etag = entry.etag;
    else if (mtimeMs === mtimeMs) etag = statEtag(stat.size, mtimeMs);
    // No modification time (a `deno compile` image may have none): a hash
    // of the content, computed once per file version.
    else etag = hashEtag(await digestOf(resolved, stat));
    const identity: VariantFacts = {
      coding: undefined,
      size: stat.size,
      etag,
      mtimeMs,
      file: resolved,
    };
    identity.bytes = await this.#hold(
      "",
      resolved,
      stampOf(stat),
      stat.size,
      old,
      slot,
    );
    const sidecars: VariantFacts[] = [];
    if (this.#options.preferPrecompressed) {
      for (const coding of SIDECAR_CODINGS) {
        const facts = await this.#sidecar(
          abs,
          coding,
          mtimeMs,
          indexed ? entry : undefined,
          real,
        );
        if (facts === undefined) continue;
        facts.bytes = await this.#hold(
          coding,
          facts.file!,
          facts.stamp!,
          facts.size,
          old,
          slot,
        );
        sidecars.push(facts);
      }
    }
    return makeAsset(
      path,
      MimeTypes.detect(path),
      identity,
      sidecars,
      this.#options.settings,
    );
  }

  // A sidecar is served only if it is a regular file inside the root, no
  // older than its source, and, when the index describes the source, the
  // very file the index lists (size, time and SHA-256 digest).
  async #sidecar(
    abs: string,
    coding: string,
    sourceMtimeMs: number,
    entry: StaticIndexEntry | undefined,
    real: string,
  ): Promise<(VariantFacts & { stamp?: string }) | undefined> {
    const file = abs + SIDECAR_SUFFIXES[coding];
    const stat = await statOrUndefined(file);
    if (stat === undefined || !stat.isFile) return undefined;
    const mtimeMs = Math.floor(stat.mtime?.getTime() ?? NaN);
    if (!(mtimeMs >= sourceMtimeMs)) return undefined;
    const resolved = await Deno.realPath(file);
    if (!inside(resolved, real)) return undefined;
    if (entry === undefined) {
      return {
        coding,
        size: stat.size,
        etag: statEtag(stat.size, mtimeMs).slice(0, -1) + `-${coding}"`,
        mtimeMs,
        file: resolved,
        stamp: stampOf(stat),
      };
    }
    const listed = entry.sidecars?.[coding];
    if (
      listed === undefined || listed.size !== stat.size ||
      listed.mtimeMs !== mtimeMs
    ) {
      return undefined;
    }
    const digest = await digestOf(resolved, stat);
    if (digest !== listed.sha256) return undefined;
    return {
      coding,
      size: stat.size,
      etag: hashEtag(digest),
      mtimeMs,
      file: resolved,
      stamp: stampOf(stat),
    };
  }

  // Returns the bytes of a small file to serve from memory, reusing what the
  // previous slot held when the file did not change.
  async #hold(
    coding: string,
    file: string,
    fileStamp: string,
    size: number,
    old: Slot | undefined,
    slot: Slot,
  ): Promise<Uint8Array | undefined> {
    const opts = this.#options;
    if (!opts.cacheInMemory || size > opts.maxCachedFileSize) return undefined;
    const stamp = `${file}:${fileStamp}`;
    slot.stamps!.set(coding, stamp);
    const previous = old?.stamps?.get(coding) === stamp
      ? old.held?.get(coding)
      : undefined;
    let bytes = previous;
    if (bytes === undefined) {
      if (opts.memory.used + size > opts.memory.limit) return undefined;
      bytes = await Deno.readFile(file);
      // Changed while we read it: serve it from disk until it settles.
      if (bytes.byteLength !== size) return undefined;
    } else {
      old!.held!.delete(coding); // Moves to the new slot; not released twice.
      opts.memory.used -= size;
    }
    opts.memory.used += size;
    slot.held!.set(coding, bytes);
    return bytes;
  }

  // The root's real path and the index, re-checked once per TTL; lookups
  // that arrive during a check wait for it rather than see a half state.
  #realRoot(now: number): Promise<string | undefined> {
    if (
      isFresh(this.#indexCheckedAt, this.#indexCheckedUntil, now) &&
      this.#checking !== undefined
    ) {
      return this.#checking;
    }
    this.#indexCheckedAt = now;
    this.#indexCheckedUntil = now + this.#options.statTtlMs;
    return this.#checking = this.#check();
  }

  async #check(): Promise<string | undefined> {
    try {
      this.#real ??= await Deno.realPath(this.#dir);
    } catch {
      return undefined;
    }
    await this.#loadIndex();
    return this.#real;
  }

  async #loadIndex(): Promise<void> {
    const file = `${this.#dir}/${INDEX_FILE_NAME}`;
    const stat = await statOrUndefined(file);
    const stamp = stat?.isFile ? `${stat.size}:${stat.mtime?.getTime()}` : "";
    if (stamp === this.#indexStamp) return;
    this.#indexStamp = stamp;
    let index: Map<string, StaticIndexEntry> | undefined;
    if (stamp !== "") {
      const parsed = parseIndex(await Deno.readTextFile(file).catch(() => ""));
      if (parsed !== undefined) index = new Map(Object.entries(parsed.files));
    }
    this.#index = index;
    // Everything cached was judged against the old index.
    const current = this.#slots;
    this.#slots = new Map();
    for (const slot of current.values()) {
      if (!(slot.value instanceof Promise)) this.#release(slot);
    }
  }
}

// A listing's entry: what the name leads to, when that is a file or a
// directory inside the root.
async function listingEntry(
  file: string,
  entry: Deno.DirEntry,
  real: string,
): Promise<ListingEntry | undefined> {
  try {
    const stat = await Deno.stat(file);
    if (!stat.isFile && !stat.isDirectory) return undefined;
    if (entry.isSymlink && !inside(await Deno.realPath(file), real)) {
      return undefined;
    }
    return {
      name: entry.name,
      directory: stat.isDirectory,
      size: stat.isFile ? stat.size : 0,
      mtimeMs: stat.mtime?.getTime() ?? NaN,
    };
  } catch {
    return undefined; // A broken link, or removed meanwhile.
  }
}

// Whether a name is a sidecar (`app.js.gz`) of a file listed beside it.
function isSidecarBeside(name: string, names: Set<string>): boolean {
  for (const coding of SIDECAR_CODINGS) {
    const suffix = SIDECAR_SUFFIXES[coding]!;
    if (name.endsWith(suffix) && names.has(name.slice(0, -suffix.length))) {
      return true;
    }
  }
  return false;
}

// The SHA-256 digest of one version of a file, computed once.
async function digestOf(
  resolved: string,
  stat: Deno.FileInfo,
): Promise<string> {
  const key = `${resolved}:${stampOf(stat)}`;
  let digest = digests.get(key);
  if (digest === undefined) {
    digest = await sha256File(resolved);
    if (digests.size >= MAX_DIGESTS) digests.clear();
    digests.set(key, digest);
  }
  return digest;
}

// What identifies one version of a file: rewriting it changes the inode
// change time even when the modification time is put back.
function stampOf(stat: Deno.FileInfo): string {
  return `${stat.size}:${stat.mtime?.getTime()}:${stat.ctime?.getTime()}:${stat.ino}`;
}

function inside(resolved: string, root: string): boolean {
  return resolved === root ||
    (resolved.startsWith(root) &&
      (root.endsWith("/") || resolved.charCodeAt(root.length) === 0x2f));
}

async function statOrUndefined(
  path: string,
): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch {
    return undefined;
  }
}
