/**
 * The levels of `logging.level`.
 *
 * @module
 */

/** The values of {@linkcode LogLevel}, most verbose first. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "warn",
  "error",
  "off",
];

/**
 * A value of `logging.level`. `info` (the default) prints the listening
 * URLs; `warn` adds nothing but warnings such as a restarted worker; `error`
 * prints only failures; `off` prints nothing but the access log when it is
 * on; `debug` also prints the effective configuration and adds an
 * `X-Worker-Id` response header naming the worker that answered (a way to
 * see `--workers` spread connections).
 *
 * @example Only the default level prints the listening URLs
 * ```ts
 * import { loadServeConfig, type LogLevel } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * const config = await loadServeConfig(["--root", root]);
 * const level: LogLevel = config.logLevel;
 * assert.equal(level, "info");
 * await Deno.remove(root);
 * ```
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

/**
 * Tells whether a message of level `message` is printed when the configured
 * level is `configured`.
 *
 * @param configured The level of `logging.level`.
 * @param message The level of the message.
 * @returns `true` when the message is printed.
 */
export function logs(
  configured: LogLevel,
  message: Exclude<LogLevel, "off">,
): boolean {
  return LOG_LEVELS.indexOf(message) >= LOG_LEVELS.indexOf(configured);
}
