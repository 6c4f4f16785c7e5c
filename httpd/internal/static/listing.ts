/**
 * Directory listings: the entries of a directory, sorted, and the two forms
 * they are sent in, an HTML page and JSON.
 *
 * @module
 */

/** One entry of a listing. */
export interface ListingEntry {
  /** The name, without a trailing slash. */
  readonly name: string;
  /** Whether it is a directory. */
  readonly directory: boolean;
  /** The size in bytes (0 for a directory). */
  readonly size: number;
  /** The modification time in milliseconds since the epoch, or `NaN`. */
  readonly mtimeMs: number;
}

/** A directory's entries, as read. */
export interface Listing {
  /** The entries, in no particular order. */
  readonly entries: readonly ListingEntry[];
  /** Whether entries were left out because the directory is too large. */
  readonly truncated: boolean;
}

/** At most this many entries are listed: a page of 10,000 rows is already
 * more than a person reads, and it bounds the work a request can cause. */
export const MAX_LISTING_ENTRIES = 10_000;

const collator = new Intl.Collator("en", { numeric: true });

/**
 * Sorts entries as file managers do: directories first, then by name,
 * with numbers in names compared by value (`2.txt` before `10.txt`).
 *
 * @param entries The entries.
 * @returns A sorted copy.
 */
export function sortEntries(
  entries: readonly ListingEntry[],
): ListingEntry[] {
  return [...entries].sort((a, b) =>
    a.directory !== b.directory
      ? (a.directory ? -1 : 1)
      : collator.compare(a.name, b.name) || (a.name < b.name ? -1 : 1)
  );
}

/**
 * The JSON form: `{ path, entries: [{ name, type, size, mtime }], truncated }`,
 * with `type` `"directory"` or `"file"`, `size` in bytes (files only) and
 * `mtime` as an ISO 8601 UTC time (or `null` when unknown).
 *
 * @param path The decoded directory path, ending with `/`.
 * @param listing The entries, sorted.
 * @returns The JSON text.
 */
export function listingJson(path: string, listing: Listing): string {
  return JSON.stringify({
    path,
    entries: listing.entries.map((e) =>
      e.directory
        ? { name: e.name, type: "directory", mtime: isoTime(e.mtimeMs) }
        : {
          name: e.name,
          type: "file",
          size: e.size,
          mtime: isoTime(e.mtimeMs),
        }
    ),
    truncated: listing.truncated,
  });
}

/**
 * The HTML form: a page titled "Index of PATH" with a table of names (links
 * relative to the directory), sizes and modification times (UTC), and a
 * link to the parent directory below the root. Every name is escaped for
 * HTML and percent-encoded in links, so no file name can inject markup.
 *
 * @param path The decoded directory path, ending with `/`.
 * @param listing The entries, sorted.
 * @returns The HTML text.
 */
export function listingHtml(path: string, listing: Listing): string {
  const title = `Index of ${escapeHtml(path)}`;
  const rows: string[] = [];
  if (path !== "/") {
    rows.push(
      `<tr><td><a href="../">../</a></td><td></td><td></td></tr>`,
    );
  }
  for (const e of listing.entries) {
    const shown = escapeHtml(e.name) + (e.directory ? "/" : "");
    const href = escapeHtml(encodeURIComponent(e.name)) +
      (e.directory ? "/" : "");
    const size = e.directory
      ? `<td class="size">—</td>`
      : `<td class="size" title="${e.size} bytes">${formatSize(e.size)}</td>`;
    const iso = isoTime(e.mtimeMs);
    const time = iso === null
      ? "<td></td>"
      : `<td><time datetime="${iso}">${
        iso.slice(0, 16).replace("T", " ")
      }</time></td>`;
    rows.push(
      `<tr><td><a href="${href}"${
        e.directory ? ' class="dir"' : ""
      }>${shown}</a></td>${size}${time}</tr>`,
    );
  }
  const note = listing.truncated
    ? `<p>Only the first ${MAX_LISTING_ENTRIES} entries are listed.</p>\n`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.25rem; font-weight: 600; word-break: break-all; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 0.3rem 0.75rem; text-align: left; border-bottom: 1px solid #8884; }
th { font-weight: 600; }
td:first-child { word-break: break-all; }
.size { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td:last-child { white-space: nowrap; font-variant-numeric: tabular-nums; }
a { text-decoration: none; }
a:hover { text-decoration: underline; }
a.dir { font-weight: 600; }
</style>
</head>
<body>
<h1>${title}</h1>
<table>
<thead><tr><th>Name</th><th class="size">Size</th><th>Modified (UTC)</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table>
${note}</body>
</html>
`;
}

/**
 * Writes a size for people: bytes below 1 KiB, then KiB, MiB, GiB with one
 * decimal below 10.
 *
 * @param bytes The size.
 * @returns Such as `512 B`, `1.5 KiB` or `12 MiB`.
 */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = value < 10 ? value.toFixed(1) : Math.round(value).toString();
  return `${text.replace(/\.0$/, "")} ${units[unit]}`;
}

/**
 * Escapes text for HTML content and attribute values.
 *
 * @param text The text.
 * @returns The text with `&`, `<`, `>`, `"` and `'` as character references.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function isoTime(ms: number): string | null {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
