/**
 * Answers a request with a found file: picks the variant, evaluates the
 * preconditions (304, 412), serves ranges (206, 416) and shapes the answer
 * when the file stands in for another path, as the single-page shell or the
 * not-found page.
 *
 * @module
 */
import { HttpHeaders, sharedHeaders } from "../../headers.ts";
import type { Request } from "../../request.ts";
import { Response } from "../../response.ts";
import { Body } from "../../body.ts";
import type { Asset } from "./asset.ts";
import {
  evaluatePreconditions,
  ifRangeMatches,
  Precondition,
} from "./conditional.ts";
import { makeBoundary, multipartBody } from "./multipart.ts";
import { chooseVariant } from "./negotiate.ts";
import { parseRange } from "./range.ts";
import { full, plain, type Reply, slice } from "./reply.ts";

/** How a found file answers: as itself, as the single-page shell, or as
 * the not-found page. */
export const Mode = { File: 0, Spa: 1, NotFound: 2 } as const;
/** One of {@linkcode Mode}. */
export type Mode = typeof Mode[keyof typeof Mode];

const NO_CACHE = "no-cache";

/**
 * Answers a GET or HEAD request with a file.
 *
 * - `Mode.File`: RFC 9110 section 13.2.2 preconditions (304 with the
 *   validators, or 412), then `Range` (section 14) for GET: one range is a
 *   206 with `Content-Range`, several a `multipart/byteranges` 206, an
 *   unsatisfiable one a 416; `If-Range` that does not match gives the whole.
 * - `Mode.Spa`: the same, marked `Cache-Control: no-cache` and
 *   `Vary: Accept`, since the shell answers many URLs.
 * - `Mode.NotFound`: a 404 with the file's content and no validators,
 *   ranges or conditional answers: they describe the page, not the URL.
 *
 * @param req The request.
 * @param asset The file.
 * @param mode Whose answer the file gives.
 * @returns The response.
 */
export function answer(req: Request, asset: Asset, mode: Mode): Reply {
  // Most files have no sidecar: skip the Accept-Encoding lookup for them.
  const v = asset.sidecars.length === 0
    ? asset.identity
    : chooseVariant(asset, req.header("accept-encoding"));
  if (mode === Mode.NotFound) {
    const names: string[] = [];
    const values: string[] = [];
    for (let i = 0; i < v.names.length; i++) {
      const name = v.names[i]!;
      if (
        name === "etag" || name === "last-modified" || name === "accept-ranges"
      ) continue;
      names.push(name);
      values.push(name === "cache-control" ? NO_CACHE : v.values[i]!);
    }
    return full(req, v, 404, HttpHeaders.fromTrusted(names, values));
  }
  const headers = req.headers;
  const pre = evaluatePreconditions(headers, v.etag, v.lastModified);
  if (pre === Precondition.NotModified) {
    // The cheapest answer: the validators, Cache-Control and Vary computed
    // with the cached stat (RFC 9110 section 15.4.5), no file opened, no
    // body; the fields are shared with the variant until someone changes
    // them (copy on write), so nothing is copied per request.
    const res = new Response(Body.empty(), {
      status: 304,
      headers: sharedFields(v.names304, v.values304),
    });
    if (mode === Mode.Spa) spaHeaders(res.headers);
    return res;
  }
  if (pre === Precondition.Failed) return plain(412, "Precondition Failed");
  const out = sharedFields(v.names, v.values);
  if (mode === Mode.Spa) spaHeaders(out);
  // RFC 9110 section 14.2: Range is defined for GET only.
  const range = req.method === "GET" ? headers.get("range") : null;
  if (range !== null) {
    const ifRange = headers.get("if-range");
    if (
      ifRange === null || ifRangeMatches(ifRange, v.etag, v.lastModified)
    ) {
      const ranges = parseRange(range, v.size);
      if (ranges === "unsatisfiable") {
        // RFC 9110 section 15.5.17: 416 says the current length.
        return plain(416, "Range Not Satisfiable", ["content-range"], [
          `bytes */${v.size}`,
        ]);
      }
      if (ranges !== null && ranges.length === 1) {
        const { start, end } = ranges[0]!;
        out.set("content-range", `bytes ${start}-${end}/${v.size}`);
        return slice(v, 206, out, start, end - start + 1);
      }
      if (ranges !== null) {
        const boundary = makeBoundary();
        const type = v.values[0]!;
        out.set("content-type", `multipart/byteranges; boundary=${boundary}`);
        const body = multipartBody(v.bytes ?? v.file!, {
          ranges,
          size: v.size,
          contentType: type,
          boundary,
        });
        return new Response(body, { status: 206, headers: out });
      }
    }
  }
  return full(req, v, 200, out);
}

// A header map over a variant's precomputed fields, copied only when a
// filter or the code below changes it (`sharedHeaders` never writes to the
// arrays it is given).
function sharedFields(
  names: readonly string[],
  values: readonly string[],
): HttpHeaders {
  return sharedHeaders(names as string[], values as string[]);
}

function spaHeaders(headers: HttpHeaders): void {
  // The shell answers many URLs and changes with each deployment: caches
  // must revalidate it, and key it on Accept (an asset request gets 404).
  headers.set("cache-control", NO_CACHE);
  const vary = headers.get("vary");
  headers.set("vary", vary === null ? "Accept" : `Accept, ${vary}`);
}
