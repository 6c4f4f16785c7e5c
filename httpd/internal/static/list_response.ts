/**
 * Answers a directory path with a listing: the entries of every root that
 * has the directory, merged, in HTML or JSON as `Accept` prefers.
 *
 * @module
 */
import { Body } from "../../body.ts";
import { HttpHeaders } from "../../headers.ts";
import type { Request } from "../../request.ts";
import { Response } from "../../response.ts";
import {
  type Listing,
  type ListingEntry,
  listingHtml,
  listingJson,
  sortEntries,
} from "./listing.ts";
import { prefersJson } from "./prefers_json.ts";
import type { Root } from "./root.ts";

// The page only needs its own inline style: no script, image, frame or
// fetch may run, whatever a file name holds.
const LISTING_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const encoder = new TextEncoder();

/**
 * Lists a directory from every root that can list and has it; a name in an
 * earlier root hides the same name in a later one, as lookups do.
 *
 * @param roots The roots, in search order.
 * @param dir A decoded, safe directory path ending with `/`.
 * @param hidden Whether to include names starting with `.`.
 * @returns The sorted listing, or `undefined` when no root has the
 * directory.
 */
export async function listDirectory(
  roots: readonly Root[],
  dir: string,
  hidden: boolean,
): Promise<Listing | undefined> {
  const byName = new Map<string, ListingEntry>();
  let found = false;
  let truncated = false;
  for (const root of roots) {
    const listing = await root.list?.(dir, hidden);
    if (listing === undefined) continue;
    found = true;
    truncated ||= listing.truncated;
    for (const entry of listing.entries) {
      if (!byName.has(entry.name)) byName.set(entry.name, entry);
    }
  }
  if (!found) return undefined;
  return { entries: sortEntries([...byName.values()]), truncated };
}

/**
 * Makes the listing's response: JSON when `Accept` prefers
 * `application/json`, else HTML; never cached without revalidation, keyed
 * on `Accept`.
 *
 * @param req The request.
 * @param dir The decoded directory path, ending with `/`.
 * @param listing The sorted listing.
 * @returns The 200 response.
 */
export function listingResponse(
  req: Request,
  dir: string,
  listing: Listing,
): Response {
  const json = prefersJson(req.header("accept"));
  const bytes = encoder.encode(
    json ? listingJson(dir, listing) : listingHtml(dir, listing),
  );
  const names = ["content-type", "cache-control", "vary"];
  const values = [
    json ? "application/json" : "text/html; charset=utf-8",
    "no-cache",
    "Accept",
  ];
  if (!json) {
    names.push("content-security-policy", "x-content-type-options");
    values.push(LISTING_CSP, "nosniff");
  }
  return new Response(Body.of(bytes), {
    status: 200,
    headers: HttpHeaders.fromTrusted(names, values),
  });
}
