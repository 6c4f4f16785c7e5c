/**
 * Name rules shared by tags, scopes and the registry.
 *
 * @module
 */
import { InvalidNameError } from "../errors.ts";

/** Tag and scope names (MicroProfile Metrics 5.1 architecture, "Tags" and "Scopes"). */
export const NAME_PATTERN: RegExp = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Tag names the implementation adds itself; an application may not use them.
 * `mp_scope` and `mp_app` are MicroProfile's; the exposition adds `le` to
 * each histogram bucket and `quantile` to each timer and histogram quantile,
 * and OpenMetrics 1.0 says the label names of a sample are unique (a scrape
 * with `quantile` twice in one sample fails whole).
 */
export const RESERVED_TAG_NAMES: ReadonlySet<string> = new Set([
  "mp_scope",
  "mp_app",
  "le",
  "quantile",
]);

/** Throws unless `name` is a valid tag name. */
export function checkTagName(name: string): void {
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    throw new InvalidNameError(
      "INVALID_NAME",
      `Cannot use tag name "${name}": it must match [a-zA-Z_][a-zA-Z0-9_]*`,
    );
  }
}

/** Throws unless `scope` is a valid scope name. */
export function checkScopeName(scope: string): void {
  if (typeof scope !== "string" || !NAME_PATTERN.test(scope)) {
    throw new InvalidNameError(
      "INVALID_NAME",
      `Cannot use scope "${scope}": it must match [a-zA-Z_][a-zA-Z0-9_]*`,
    );
  }
}
