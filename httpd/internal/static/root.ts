/**
 * The seam between the static handler and where files live: a directory on
 * disk, or files shipped with a module and fetched by URL.
 *
 * @module
 */
import type { Asset } from "./asset.ts";
import type { Listing } from "./listing.ts";

/** What a lookup found at a path that names a directory. */
export const DIRECTORY = "directory";

/** A found file, a directory, or nothing. */
export type LookupResult = Asset | typeof DIRECTORY | undefined;

/** A place files are served from. */
export interface Root {
  /**
   * Finds a decoded, safe path (from `resolvePath`). Answers synchronously
   * when the answer is cached, so the hot path needs no promise.
   */
  lookup(path: string): LookupResult | Promise<LookupResult>;
  /**
   * Reads a directory for a listing, when this kind of root can. Leaves
   * out what is never served: the static index, sidecars beside their
   * file, and entries that lead outside the root.
   *
   * @param dir A decoded, safe directory path ending with `/`.
   * @param hidden Whether to include names starting with `.`.
   * @returns The entries, or `undefined` when there is no such directory.
   */
  list?(dir: string, hidden: boolean): Promise<Listing | undefined>;
}

/** Bytes held in memory by every root of one handler, against one cap. */
export interface MemoryBudget {
  /** Bytes held now. */
  used: number;
  /** The cap. */
  readonly limit: number;
}
