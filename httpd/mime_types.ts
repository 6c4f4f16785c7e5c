/**
 * Media types of static files, by file extension.
 *
 * @module
 */

/** The media type of content whose type is unknown (RFC 9110 section 8.3). */
export const DEFAULT_MIME_TYPE = "application/octet-stream";

const UTF8 = "; charset=utf-8";

// A curated table instead of the 2,500 entries of mime-db: one object lookup
// on the hot path, no data file to load, and every text type carries an
// explicit charset so browsers never sniff. Extensions are lower case.
const TYPES: ReadonlyMap<string, string> = new Map(Object.entries({
  // Documents and code (text, served with charset=utf-8).
  html: "text/html" + UTF8,
  htm: "text/html" + UTF8,
  xhtml: "application/xhtml+xml" + UTF8,
  css: "text/css" + UTF8,
  js: "text/javascript" + UTF8,
  mjs: "text/javascript" + UTF8,
  cjs: "text/javascript" + UTF8,
  json: "application/json" + UTF8,
  map: "application/json" + UTF8,
  jsonld: "application/ld+json" + UTF8,
  webmanifest: "application/manifest+json" + UTF8,
  txt: "text/plain" + UTF8,
  text: "text/plain" + UTF8,
  md: "text/markdown" + UTF8,
  csv: "text/csv" + UTF8,
  tsv: "text/tab-separated-values" + UTF8,
  xml: "application/xml" + UTF8,
  rss: "application/rss+xml" + UTF8,
  atom: "application/atom+xml" + UTF8,
  svg: "image/svg+xml" + UTF8,
  ics: "text/calendar" + UTF8,
  vtt: "text/vtt" + UTF8,
  yaml: "application/yaml" + UTF8,
  yml: "application/yaml" + UTF8,
  ts: "text/typescript" + UTF8,
  // Images.
  png: "image/png",
  apng: "image/apng",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  ico: "image/vnd.microsoft.icon",
  bmp: "image/bmp",
  tif: "image/tiff",
  tiff: "image/tiff",
  // Fonts.
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  eot: "application/vnd.ms-fontobject",
  // Audio and video.
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/opus",
  wav: "audio/wav",
  flac: "audio/flac",
  m4a: "audio/mp4",
  aac: "audio/aac",
  mp4: "video/mp4",
  m4v: "video/mp4",
  webm: "video/webm",
  ogv: "video/ogg",
  mov: "video/quicktime",
  // Applications and archives.
  wasm: "application/wasm",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tgz: "application/gzip",
  br: "application/x-brotli",
  zst: "application/zstd",
  tar: "application/x-tar",
  "7z": "application/x-7z-compressed",
  bin: DEFAULT_MIME_TYPE,
  exe: DEFAULT_MIME_TYPE,
}));

// Types whose bytes compress well with gzip or brotli. Already-compressed
// formats (images other than SVG/BMP, fonts woff/woff2, audio, video,
// archives) gain nothing and are left alone.
const COMPRESSIBLE = new Set([
  "application/json",
  "application/ld+json",
  "application/manifest+json",
  "application/xml",
  "application/xhtml+xml",
  "application/rss+xml",
  "application/atom+xml",
  "application/yaml",
  "application/wasm",
  "application/vnd.ms-fontobject",
  "image/svg+xml",
  "image/bmp",
  "image/vnd.microsoft.icon",
  "font/ttf",
  "font/otf",
]);

/**
 * File-extension to media-type lookup for static files.
 *
 * @example Detect and classify media types
 * ```ts
 * import { MimeTypes } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(MimeTypes.detect("/index.html"), "text/html; charset=utf-8");
 * assert.equal(MimeTypes.detect("logo.PNG"), "image/png");
 * assert.equal(MimeTypes.detect("data.unknown"), "application/octet-stream");
 * assert.equal(MimeTypes.isCompressible("text/css; charset=utf-8"), true);
 * assert.equal(MimeTypes.isCompressible("image/png"), false);
 * ```
 */
export const MimeTypes: {
  /**
   * Returns the media type of a path from its extension (case-insensitive).
   * Text types carry `charset=utf-8`; an unknown or missing extension gives
   * `application/octet-stream`.
   *
   * @param path A file name, path or URL path.
   * @returns The `Content-Type` value.
   */
  detect(path: string): string;
  /**
   * Returns the media type of an extension, or `undefined` when unknown.
   *
   * @param extension The extension without the dot, such as `css`.
   * @returns The `Content-Type` value, or `undefined`.
   */
  byExtension(extension: string): string | undefined;
  /**
   * Tells whether content of this media type is worth compressing: text,
   * JSON, XML, SVG, WebAssembly and uncompressed fonts.
   *
   * @param type A media type, with or without parameters.
   * @returns `true` when gzip or brotli would shrink it.
   */
  isCompressible(type: string): boolean;
} = {
  detect(path: string): string {
    const dot = path.lastIndexOf(".");
    if (dot === -1 || dot < path.lastIndexOf("/")) return DEFAULT_MIME_TYPE;
    const ext = path.slice(dot + 1);
    return TYPES.get(ext) ?? TYPES.get(ext.toLowerCase()) ?? DEFAULT_MIME_TYPE;
  },
  byExtension(extension: string): string | undefined {
    return TYPES.get(extension.toLowerCase());
  },
  isCompressible(type: string): boolean {
    const semi = type.indexOf(";");
    const essence = (semi === -1 ? type : type.slice(0, semi)).trim()
      .toLowerCase();
    return essence.startsWith("text/") || COMPRESSIBLE.has(essence) ||
      essence.endsWith("+json") || essence.endsWith("+xml");
  },
};
