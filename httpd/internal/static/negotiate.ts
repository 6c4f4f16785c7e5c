/**
 * Chooses which stored form of a file answers a request: a precompressed
 * sidecar the client accepts, or the file itself.
 *
 * @module
 */
import { AcceptEncoding } from "../../accept_encoding.ts";
import type { Asset, Variant } from "./asset.ts";

/**
 * Picks the variant for an `Accept-Encoding` value. RFC 9110 section
 * 12.5.3: the client's q-values decide; ties go to the sidecar listed first
 * (the smaller coding, br before gzip) and the file itself comes last.
 *
 * @param asset The file and its sidecars.
 * @param acceptEncoding The request's field value, or `undefined`.
 * @returns The variant to send.
 */
export function chooseVariant(
  asset: Asset,
  acceptEncoding: string | undefined,
): Variant {
  const sidecars = asset.sidecars;
  if (sidecars.length === 0) return asset.identity;
  const coding = AcceptEncoding.select(acceptEncoding, asset.codings);
  for (let i = 0; i < sidecars.length; i++) {
    const sidecar = sidecars[i]!;
    if (sidecar.coding === coding) return sidecar;
  }
  return asset.identity;
}
