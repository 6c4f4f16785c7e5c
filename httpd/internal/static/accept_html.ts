/**
 * Whether a request's `Accept` field explicitly asks for HTML, the test that
 * keeps single-page mode from answering API and asset requests.
 *
 * @module
 */

/**
 * Tells whether `Accept` lists `text/html` with a non-zero weight
 * (RFC 9110 section 12.5.1). Browsers navigating to a page always do;
 * `fetch()`, XHR, `<script>` and `<img>` loads and `curl` (a bare wildcard) do not,
 * so they get an honest 404 instead of the application shell.
 *
 * @param accept The field value, or `undefined` when absent.
 * @returns `true` when HTML is explicitly acceptable.
 */
export function acceptsHtml(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const at = accept.toLowerCase().indexOf("text/html");
  if (at === -1) return false;
  for (const member of accept.toLowerCase().split(",")) {
    const parts = member.split(";");
    if (parts[0]!.trim() !== "text/html") continue;
    for (let i = 1; i < parts.length; i++) {
      const [name, value] = parts[i]!.split("=");
      if (name!.trim() === "q") return Number(value?.trim()) > 0;
    }
    return true;
  }
  return false;
}
