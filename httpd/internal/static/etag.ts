/**
 * Entity tags: making them and comparing them (RFC 9110 section 8.8.3).
 *
 * @module
 */
import { loadCrypto } from "../node_builtins.ts";

/** How many base64url characters of the SHA-256 digest an ETag keeps:
 * 27 characters are 162 bits, far beyond any chance of collision. */
export const ETAG_HASH_CHARS = 27;

/**
 * Returns the base64url SHA-256 digest of some bytes.
 *
 * @param bytes The content.
 * @returns 43 base64url characters.
 */
export async function sha256(bytes: Uint8Array): Promise<string> {
  const { createHash } = await loadCrypto();
  return createHash("sha256").update(bytes).digest("base64url");
}

/**
 * Returns the base64url SHA-256 digest of a file, read in chunks.
 *
 * @param path The file.
 * @returns 43 base64url characters.
 */
export async function sha256File(path: string | URL): Promise<string> {
  const { createHash } = await loadCrypto();
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("base64url");
}

/**
 * Makes a strong ETag from a content hash: equal content, equal tag, on any
 * machine and after any copy.
 *
 * @param digest A base64url SHA-256 digest.
 * @returns The quoted entity-tag.
 */
export function hashEtag(digest: string): string {
  return `"${digest.slice(0, ETAG_HASH_CHARS)}"`;
}

/**
 * Makes a strong ETag from a file's size and modification time, the way
 * nginx does, for files the index does not describe.
 *
 * @param size The size in bytes.
 * @param mtimeMs The modification time in milliseconds.
 * @returns The quoted entity-tag.
 */
export function statEtag(size: number, mtimeMs: number): string {
  return `"${Math.floor(mtimeMs).toString(16)}-${size.toString(16)}"`;
}

/**
 * Tells whether a list of entity-tags (the value of `If-Match` or
 * `If-None-Match`) names the current one. `*` matches any. A malformed list
 * matches nothing from the malformed element on.
 *
 * @param list The field value.
 * @param etag The current strong entity-tag, quoted.
 * @param weak Use the weak comparison (RFC 9110 section 8.8.3.2): `W/`
 * prefixes are ignored. Otherwise a weak tag never matches (strong
 * comparison).
 * @returns `true` on a match.
 */
export function matchesEtag(
  list: string,
  etag: string,
  weak: boolean,
): boolean {
  if (list === etag) return true;
  const n = list.length;
  let i = 0;
  while (i < n) {
    let c = list.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x2c /* , */) {
      i++;
      continue;
    }
    if (c === 0x2a /* * */) return true;
    let isWeak = false;
    if (c === 0x57 /* W */ && list.charCodeAt(i + 1) === 0x2f /* / */) {
      isWeak = true;
      i += 2;
      c = list.charCodeAt(i);
    }
    if (c !== 0x22 /* " */) return false;
    const close = list.indexOf('"', i + 1);
    if (close === -1) return false;
    if (
      (weak || !isWeak) && close + 1 - i === etag.length &&
      list.startsWith(etag, i)
    ) return true;
    i = close + 1;
  }
  return false;
}
