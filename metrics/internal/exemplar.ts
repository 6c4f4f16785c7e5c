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
import { coarseNow } from "./clock.ts";

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
  let length = 0;
  for (const name in labels) {
    const labelValue = labels[name];
    if (typeof labelValue !== "string" || !Object.hasOwn(labels, name)) {
      continue;
    }
    if (!checkedNames.has(name)) checkName(name);
    length += name.length + labelValue.length;
    pairs.push([name, labelValue]);
  }
  // UTF-16 length bounds the code points from above: count them only when
  // it is over the limit.
  if (length > EXEMPLAR_MAX_CHARACTERS) checkLength(pairs);
  return {
    labels: pairs,
    value,
    // The task's cached clock: reading the system clock would cost more
    // than the rest of the exemplar.
    timestamp: (performance.timeOrigin + coarseNow()) / MILLIS_PER_SECOND,
  };
}

/** Names already checked; label names are few and repeat on every call. */
const checkedNames = new Set<string>();
/** Bounds `checkedNames` against callers that invent names. */
const CHECKED_NAMES_LIMIT = 1000;

function checkName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new InvalidNameError(
      "INVALID_EXEMPLAR",
      `Cannot use exemplar label "${name}": it must match [a-zA-Z_][a-zA-Z0-9_]*`,
    );
  }
  if (checkedNames.size >= CHECKED_NAMES_LIMIT) checkedNames.clear();
  checkedNames.add(name);
}

function checkLength(pairs: readonly (readonly [string, string])[]): void {
  let characters = 0;
  for (const [name, value] of pairs) {
    for (const _ of name) characters++;
    for (const _ of value) characters++;
  }
  if (characters > EXEMPLAR_MAX_CHARACTERS) {
    throw new InvalidNameError(
      "INVALID_EXEMPLAR",
      `Cannot use exemplar labels of ${characters} characters: OpenMetrics allows ${EXEMPLAR_MAX_CHARACTERS}`,
    );
  }
}
