/**
 * Checking and storing exemplars; only code paths that were given one run
 * anything here.
 *
 * @module
 */
import { InvalidNameError } from "../errors.ts";
import { EXEMPLAR_MAX_CHARACTERS, type ExemplarLabels } from "../exemplar.ts";
import type { ExemplarState } from "../state.ts";
import { NAME_PATTERN } from "./names.ts";

const MILLIS_PER_SECOND = 1000;

/**
 * Checks exemplar labels (OpenMetrics 1.0, "Exemplars": label names as for
 * metrics, at most 128 code points of names and values) and stamps them with
 * the value and the current time.
 */
export function makeExemplar(
  labels: ExemplarLabels,
  value: number,
): ExemplarState {
  const pairs: [string, string][] = [];
  let characters = 0;
  for (const name in labels) {
    if (!Object.hasOwn(labels, name)) continue;
    const labelValue = labels[name];
    if (typeof labelValue !== "string") continue;
    if (!NAME_PATTERN.test(name)) {
      throw new InvalidNameError(
        "INVALID_EXEMPLAR",
        `Cannot use exemplar label "${name}": it must match [a-zA-Z_][a-zA-Z0-9_]*`,
      );
    }
    for (const _ of name) characters++;
    for (const _ of labelValue) characters++;
    pairs.push([name, labelValue]);
  }
  if (characters > EXEMPLAR_MAX_CHARACTERS) {
    throw new InvalidNameError(
      "INVALID_EXEMPLAR",
      `Cannot use exemplar labels of ${characters} characters: OpenMetrics allows ${EXEMPLAR_MAX_CHARACTERS}`,
    );
  }
  return {
    labels: pairs,
    value,
    timestamp: Date.now() / MILLIS_PER_SECOND,
  };
}
