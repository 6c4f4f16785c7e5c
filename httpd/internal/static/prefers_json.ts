/**
 * Whether a request's `Accept` field prefers JSON to HTML, the choice a
 * directory listing makes between its two forms.
 *
 * @module
 */

/**
 * Tells whether `Accept` prefers `application/json` to `text/html`. Each
 * type takes the weight of the most specific range that matches it
 * (RFC 9110 section 12.5.1: `type/subtype` before `type/*` before `*\/*`);
 * the higher weight wins, and on equal weights the type named more
 * specifically (`application/json, *\/*` asks for JSON), as Express and
 * Koa negotiate. Otherwise HTML wins: browsers name it, `curl` sends `*\/*`.
 *
 * @param accept The field value, or `undefined` when absent.
 * @returns `true` when JSON should answer.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const json = weight(accept, "application", "json");
  const html = weight(accept, "text", "html");
  return json.q > html.q || (json.q === html.q && json.q > 0 &&
    json.specificity > html.specificity);
}

interface Weight {
  /** The weight, 0 when no range matches. */
  q: number;
  /** 2 for `type/subtype`, 1 for `type/*`, 0 for `*\/*`, -1 for none. */
  specificity: number;
}

// The weight a field gives one media type.
function weight(accept: string, type: string, subtype: string): Weight {
  let best = 0;
  let specificity = -1;
  for (const member of accept.toLowerCase().split(",")) {
    const [range, ...params] = member.split(";");
    const [t, s] = range!.trim().split("/").map((part) => part.trim());
    let level: number;
    if (t === type && s === subtype) level = 2;
    else if (t === type && s === "*") level = 1;
    else if (t === "*" && s === "*") level = 0;
    else continue;
    if (level < specificity) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split("=");
      if (name?.trim() !== "q") continue;
      const parsed = Number(value?.trim());
      q = parsed >= 0 && parsed <= 1 ? parsed : 0;
    }
    // Among ranges of the same specificity, the first one counts.
    if (level > specificity) {
      specificity = level;
      best = q;
    }
  }
  return { q: best, specificity };
}
