/**
 * The caching presets: `--immutable GLOB` and the `static.cache-rules` list
 * become the static handler's `cacheRules`.
 *
 * @module
 */
import { type CacheRule, StaticFileHandler } from "@org/httpd";
import { UsageError } from "../errors.ts";

export { IMMUTABLE_CACHE_CONTROL } from "@org/httpd";

/**
 * Checks a glob the way the static handler will read it.
 *
 * @param name The flag or key, for the message.
 * @param glob The pattern, such as `assets/**`.
 * @returns The pattern.
 * @throws {UsageError} When the handler would refuse it.
 */
export function checkGlob(name: string, glob: string): string {
  checkRule(name, { match: glob, cacheControl: "no-cache" });
  return glob;
}

/**
 * Checks a rule the way the static handler will read it.
 *
 * @param name The flag or key, for the message.
 * @param rule The glob and its `Cache-Control` value.
 * @returns The rule.
 * @throws {UsageError} When the handler would refuse it.
 */
export function checkRule(name: string, rule: CacheRule): CacheRule {
  try {
    StaticFileHandler.builder().cacheRules(rule);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // 'Cannot use static file option "cacheRules": Cannot use pattern "a[": ...'
    const reason = error.message.replace(/^.*?: (?=Cannot )?/, "")
      .replace(/^Cannot use pattern "(?:[^"\\]|\\.)*": /, "");
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${rule.match}": ${reason}`,
      { cause: error },
    );
  }
  return rule;
}
