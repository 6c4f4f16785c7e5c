/**
 * What a fuzz target is, and the checks every target shares: an input may
 * end in the parser's own typed errors only, and must not take longer than
 * a time bound.
 *
 * @module
 */
import type fc from "fast-check";

/** One parser under test. */
export interface Target<T = unknown> {
  /** Short name, used by `--only`. */
  readonly name: string;
  /** The entry point(s) it drives, for the report. */
  readonly entry: string;
  /**
   * Inputs of the CI slice (fixed seed, `deno task fuzz:ci`): chosen so
   * the whole slice stays under a minute on two cores.
   */
  readonly ciRuns: number;
  /** Builds the generator (once per worker: corpora load here). */
  arbitrary(): fc.Arbitrary<T> | Promise<fc.Arbitrary<T>>;
  /**
   * Runs the parser on one input and checks its properties; throws a
   * {@linkcode PropertyFailure} (or any unexpected error) when one fails.
   */
  check(input: T): void | Promise<void>;
  /** Per-input time bound in milliseconds (default {@linkcode TIME_BOUND_MS}). */
  readonly timeBoundMs?: number;
  /** Whether `check` returns a promise. */
  readonly async?: boolean;
  /**
   * Runs once after the last input: checks that need a batch of inputs
   * (an external tool). Returns notes for the report, and a failure.
   */
  finish?(): Promise<{ notes: string[]; failure?: string }>;
  /**
   * Library bugs this campaign found and reported, each with a failing
   * regression test in `tests/fuzz_regressions_test.ts`: an input whose
   * failure message matches is counted under the finding's id instead of
   * stopping the run, so that the run goes on looking for other bugs.
   */
  readonly known?: readonly KnownFinding[];
}

/** A reported library bug, recognised by its failure message. */
export interface KnownFinding {
  /** The id used in FUZZING.md and the regression test's name. */
  readonly id: string;
  /** Matches the failure message of the inputs it explains. */
  readonly match: RegExp;
}

/** Default per-input time bound. */
export const TIME_BOUND_MS = 50;

/** A property the parser broke (as opposed to a crash inside it). */
export class PropertyFailure extends Error {
  /**
   * Creates the failure.
   *
   * @param message Which property, and how it failed.
   */
  constructor(message: string) {
    super(message);
    this.name = "PropertyFailure";
  }
}

/**
 * Throws a {@linkcode PropertyFailure} unless `condition` holds.
 *
 * @param condition The property.
 * @param message What broke, built only on failure.
 */
export function expect(
  condition: boolean,
  message: () => string,
): asserts condition {
  if (!condition) throw new PropertyFailure(message());
}

/** A test telling the parser's typed errors from anything else. */
export type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Runs `fn`; returns its value, or the error when it is one of `allowed`.
 * Any other error is a crash: it is rethrown, marked as such.
 *
 * @param fn The call.
 * @param allowed The error classes the parser documents.
 * @returns `{ value }` or `{ error }`.
 */
export function typed<R>(
  fn: () => R,
  allowed: readonly ErrorClass[],
): { value: R; error?: undefined } | { value?: undefined; error: Error } {
  try {
    return { value: fn() };
  } catch (error) {
    if (allowed.some((c) => error instanceof c)) {
      return { error: error as Error };
    }
    throw untyped(error);
  }
}

/** {@linkcode typed} for an async call. */
export async function typedAsync<R>(
  fn: () => Promise<R>,
  allowed: readonly ErrorClass[],
): Promise<
  { value: R; error?: undefined } | { value?: undefined; error: Error }
> {
  try {
    return { value: await fn() };
  } catch (error) {
    if (allowed.some((c) => error instanceof c)) {
      return { error: error as Error };
    }
    throw untyped(error);
  }
}

function untyped(error: unknown): PropertyFailure {
  const e = error instanceof Error ? error : new Error(String(error));
  const where = e.stack?.split("\n").slice(1, 4).map((l) => l.trim()).join(
    " <- ",
  );
  return new PropertyFailure(
    `untyped error ${e.name}: ${e.message}${where ? ` (${where})` : ""}`,
  );
}

/** Bytes as a JavaScript string literal, for reports and fixtures. */
export function show(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) {
    if (b === 0x5c) s += "\\\\";
    else if (b === 0x22) s += '\\"';
    else if (b === 0x0d) s += "\\r";
    else if (b === 0x0a) s += "\\n";
    else if (b === 0x09) s += "\\t";
    else if (b >= 0x20 && b < 0x7f) s += String.fromCharCode(b);
    else s += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return `"${s}"`;
}

/** Latin-1 text to bytes (one byte per character). */
export function latin1Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

/** Bytes to Latin-1 text. */
export function latin1Text(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    s += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return s;
}

/** Joins byte arrays. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Cuts `bytes` at the sorted, deduplicated offsets `cuts` (each taken
 * modulo the length + 1).
 */
export function split(
  bytes: Uint8Array,
  cuts: readonly number[],
): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((
    a,
    b,
  ) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const cut of at) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}
