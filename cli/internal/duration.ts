/**
 * Durations as the launcher's flags and YAML keys write them: `10` (seconds),
 * `2.5s`, `500ms`, `1m`.
 *
 * @module
 */

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m)?$/;

/**
 * Parses a duration; a bare number counts seconds.
 *
 * @param text Such as `10`, `2.5s`, `500ms` or `1m`.
 * @returns Whole milliseconds, or `undefined` when the text is no duration.
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const unit = UNITS[match[2] ?? "s"] ?? 1000;
  return Math.round(Number(match[1]) * unit);
}

/**
 * Writes milliseconds the way people read them: `10 s`, `1.5 s`, `250 ms`.
 *
 * @param ms A duration.
 * @returns The text.
 */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(3))} s`;
}
