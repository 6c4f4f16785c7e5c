/**
 * Finds a path in a handler's roots, searched in order: the first root that
 * has something there wins. Cached answers stay synchronous, so a hot file
 * costs no promise.
 *
 * @module
 */
import type { Asset } from "./asset.ts";
import { DIRECTORY, type LookupResult, type Root } from "./root.ts";

/**
 * Looks a path up in the roots from index `from` on.
 *
 * @param roots The roots, in search order.
 * @param path A decoded, safe path from `resolvePath`.
 * @param from The first root to ask. Default 0.
 * @returns The first file or directory found, or `undefined`; a promise
 * only when a root has to go to the disk or the network.
 */
export function lookup(
  roots: readonly Root[],
  path: string,
  from = 0,
): LookupResult | Promise<LookupResult> {
  for (let i = from; i < roots.length; i++) {
    const r = roots[i]!.lookup(path);
    if (r instanceof Promise) {
      return r.then((v) => v !== undefined ? v : lookup(roots, path, i + 1));
    }
    if (r !== undefined) return r;
  }
  return undefined;
}

/**
 * Finds a file (not a directory) at a path.
 *
 * @param roots The roots, in search order.
 * @param path A decoded, safe path.
 * @returns The file, or `undefined`.
 */
export async function lookupFile(
  roots: readonly Root[],
  path: string,
): Promise<Asset | undefined> {
  const found = await lookup(roots, path);
  return found === DIRECTORY ? undefined : found;
}

/**
 * Finds a directory's index file: the first of `names` that is a file.
 *
 * @param roots The roots, in search order.
 * @param dir A decoded, safe directory path ending with `/`.
 * @param names The index file names, in order.
 * @returns The index file, or `undefined`.
 */
export async function lookupIndex(
  roots: readonly Root[],
  dir: string,
  names: readonly string[],
): Promise<Asset | undefined> {
  for (const name of names) {
    const found = await lookupFile(roots, dir + name);
    if (found !== undefined) return found;
  }
  return undefined;
}
