/**
 * Which media types are worth compressing.
 *
 * @module
 */

/** Exact media types (no parameters, lower case) that compress well. */
const COMPRESSIBLE = new Set([
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/json",
  "application/xml",
  "application/wasm",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/rtf",
  "application/x-sh",
  "application/x-www-form-urlencoded",
  "application/graphql",
  "application/vnd.ms-fontobject",
  "application/x-font-ttf",
  "application/x-font-opentype",
  "font/ttf",
  "font/otf",
  "font/collection",
  "image/bmp",
  "image/x-icon",
  "image/vnd.microsoft.icon",
]);

/**
 * Tells whether a `Content-Type` value names a compressible media type:
 * `text/*` (except `text/event-stream`, which must flush every event),
 * structured `+json` and `+xml` types (SVG, Atom, JSON-LD, problem details)
 * and the list above. Already-compressed formats (images, video, fonts in
 * WOFF, archives) are not.
 *
 * @param contentType The field value, or `undefined`.
 * @returns `true` when compressing is worthwhile.
 */
export function isCompressible(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim()
    .toLowerCase();
  if (type.startsWith("text/")) return type !== "text/event-stream";
  if (type.endsWith("+json") || type.endsWith("+xml")) return true;
  return COMPRESSIBLE.has(type);
}
