/**
 * The levels of `logging.level`.
 *
 * @module
 */

/**
 * The accepted values of `logging.level`, most verbose first. `info` (the
 * default) prints the listening URLs; `warn` adds nothing but warnings such
 * as a restarted worker; `error` prints only failures; `off` prints nothing
 * but the access log when it is on; `debug` also prints the effective
 * configuration and adds an `X-Worker-Id` response header naming the worker
 * that answered (a way to see `--workers` spread connections).
 */
export const LOG_LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "warn",
  "error",
  "off",
];

/** One of {@linkcode LOG_LEVELS}. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

/**
 * Tells whether a message of level `message` is printed when the configured
 * level is `configured`.
 *
 * @param configured The level of `logging.level`.
 * @param message The level of the message.
 * @returns `true` when the message is printed.
 *
 * @example Info messages are hidden at level warn
 * ```ts
 * import { logs } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * assert.equal(logs("info", "info"), true);
 * assert.equal(logs("warn", "info"), false);
 * assert.equal(logs("debug", "error"), true);
 * ```
 */
export function logs(
  configured: LogLevel,
  message: Exclude<LogLevel, "off">,
): boolean {
  return LOG_LEVELS.indexOf(message) >= LOG_LEVELS.indexOf(configured);
}
