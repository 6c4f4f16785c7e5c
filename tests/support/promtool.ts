/**
 * `promtool check metrics` for tests: where promtool is, how to run it on a
 * text, and which lint findings MicroProfile Metrics forces.
 *
 * @module
 */

import { findBinary } from "./prometheus_server.ts";

/** The promtool binary, looked up on PATH and the usual places, if any. */
export const PROMTOOL: string | undefined = findBinary("promtool");

/**
 * Lint messages the MicroProfile TCK forces, never parse errors:
 * camelCase names, quantile lines inside `histogram` families (TCK
 * HistogramTimerConfigurationTest), units published as declared (no
 * conversion to base units since MP Metrics 5.0), and type words inside
 * names the TCK chose.
 */
export const MANDATED_LINTS: readonly RegExp[] = [
  /(metric|label) names should be written in 'snake_case' not 'camelCase'$/,
  /non-summary metrics should not have "quantile" label$/,
  /use base unit "[a-z]+" instead of "[a-z]+"$/,
  /metric name should not include type '(counter|gauge|histogram|summary)'$/,
];

/**
 * Runs `promtool check metrics` on a text exposition.
 *
 * @param promtool The binary.
 * @param text The exposition.
 * @returns The exit code and every non-empty output line.
 */
export async function promtoolCheck(
  promtool: string,
  text: string,
): Promise<{ code: number; problems: string[] }> {
  const child = new Deno.Command(promtool, {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const out = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  return { code, problems: out.split("\n").filter((l) => l.trim() !== "") };
}

/**
 * The findings that are not in {@linkcode MANDATED_LINTS}.
 *
 * @param problems Output lines of {@linkcode promtoolCheck}.
 * @returns The unexpected ones.
 */
export function unexpected(problems: readonly string[]): string[] {
  return problems.filter((p) => !MANDATED_LINTS.some((re) => re.test(p)));
}
