/**
 * One of a fixed set of words, as `--log-format` and `--dotfiles` take them.
 *
 * @module
 */
import { UsageError } from "../errors.ts";

/**
 * Checks that `value` is one of `choices` (in any case).
 *
 * @param name The flag, key or variable, for the message.
 * @param value The text.
 * @param choices The words allowed.
 * @returns The word, in the case `choices` spells it.
 * @throws {UsageError} On any other text.
 */
export function parseChoice<T extends string>(
  name: string,
  value: string,
  choices: readonly T[],
): T {
  const word = value.trim().toLowerCase();
  const found = choices.find((choice) => choice === word);
  if (found === undefined) {
    throw new UsageError(
      "out-of-range",
      `Cannot use ${name} "${value}": expected one of ${choices.join(", ")}`,
    );
  }
  return found;
}
