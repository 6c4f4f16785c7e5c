/**
 * What the static handler knows about one servable file: its variants
 * (identity and precompressed sidecars), validators and the response header
 * fields, computed once per file version rather than once per request.
 *
 * @module
 */
import { formatHttpDate } from "./http_date.ts";

/** One stored form of a file: the file itself or a sidecar. */
export interface Variant {
  /** The content coding, or `undefined` for the file itself. */
  readonly coding: string | undefined;
  /** The length in bytes. */
  readonly size: number;
  /** The strong entity-tag, quoted. */
  readonly etag: string;
  /** The modification time in whole seconds, or `NaN` when unknown. */
  readonly lastModified: number;
  /** The bytes, when held in memory. */
  readonly bytes: Uint8Array | undefined;
  /** The absolute path to open, when not held in memory. */
  readonly file: string | undefined;
  /** Names of the 200 response's header fields (lower case). */
  readonly names: readonly string[];
  /** Values parallel to `names`. */
  readonly values: readonly string[];
  /** Names of the 304 response's fields: the validators, `Cache-Control`
   * and `Vary` (RFC 9110 section 15.4.5). */
  readonly names304: readonly string[];
  /** Values parallel to `names304`. */
  readonly values304: readonly string[];
}

/** A servable file. */
export interface Asset {
  /** The decoded URL path, such as `/app.js`. */
  readonly path: string;
  /** The `Content-Type` value. */
  readonly contentType: string;
  /** The file itself. */
  readonly identity: Variant;
  /** Usable sidecars, best first. */
  readonly sidecars: readonly Variant[];
  /** The codings on offer for negotiation: the sidecars' then `identity`. */
  readonly codings: readonly string[];
}

/** Facts that make a variant, before its header fields are computed. */
export interface VariantFacts {
  /** The content coding, or `undefined` for the file itself. */
  coding: string | undefined;
  /** The length in bytes. */
  size: number;
  /** The strong entity-tag, quoted. */
  etag: string;
  /** The modification time in milliseconds, or `NaN` when unknown. */
  mtimeMs: number;
  /** The bytes, when held in memory. */
  bytes?: Uint8Array | undefined;
  /** The absolute path to open, when not held in memory. */
  file?: string | undefined;
}

/** Response settings shared by every asset of one handler. */
export interface AssetSettings {
  /** The `Cache-Control` value for a path, or `undefined` for none. */
  cacheControl(path: string): string | undefined;
}

/**
 * Builds an asset and precomputes the header fields of each variant.
 *
 * @param path The decoded URL path.
 * @param contentType The media type.
 * @param identity The file itself.
 * @param sidecars Usable sidecars, best first.
 * @param settings The handler's response settings.
 * @returns The asset.
 */
export function makeAsset(
  path: string,
  contentType: string,
  identity: VariantFacts,
  sidecars: readonly VariantFacts[],
  settings: AssetSettings,
): Asset {
  const cacheControl = settings.cacheControl(path);
  // RFC 9110 section 12.5.5: when the content may differ by
  // Accept-Encoding, every response that could be cached says so.
  const vary = sidecars.length > 0;
  const make = (facts: VariantFacts): Variant => {
    const lastModified = Math.floor(facts.mtimeMs / 1000);
    const names = ["content-type", "etag"];
    const values = [contentType, facts.etag];
    if (lastModified === lastModified) {
      names.push("last-modified");
      values.push(formatHttpDate(lastModified));
    }
    names.push("accept-ranges");
    values.push("bytes");
    if (cacheControl !== undefined) {
      names.push("cache-control");
      values.push(cacheControl);
    }
    if (vary) {
      names.push("vary");
      values.push("Accept-Encoding");
    }
    if (facts.coding !== undefined) {
      names.push("content-encoding");
      values.push(facts.coding);
    }
    const names304: string[] = [];
    const values304: string[] = [];
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (
        name === "etag" || name === "last-modified" ||
        name === "cache-control" || name === "vary"
      ) {
        names304.push(name);
        values304.push(values[i]!);
      }
    }
    return {
      coding: facts.coding,
      size: facts.size,
      etag: facts.etag,
      lastModified,
      bytes: facts.bytes,
      file: facts.file,
      names,
      values,
      names304,
      values304,
    };
  };
  const sidecarVariants = sidecars.map(make);
  return {
    path,
    contentType,
    identity: make(identity),
    sidecars: sidecarVariants,
    codings: [...sidecarVariants.map((v) => v.coding!), "identity"],
  };
}
