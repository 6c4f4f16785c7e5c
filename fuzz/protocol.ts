/**
 * Messages between `main.ts` and `worker.ts`.
 *
 * @module
 */

/** What the main thread asks a worker to run. */
export interface Job {
  /** The target's name. */
  target: string;
  /** Inputs to run. */
  runs: number;
  /** The campaign seed; batch `k` uses `seed + k`. */
  seed: number;
  /** Inputs per batch (heap sample and progress after each). */
  batch: number;
  /** A fast-check path to replay (with the failing batch's seed). */
  path?: string;
  /** Where the differential writes its classes as JSON, if anywhere. */
  report?: string;
  /** One Int32 the worker increments per input, read by the hang watchdog. */
  counter: SharedArrayBuffer;
}

/** A failed property, a memory leak, or a hang. */
export interface Failure {
  /** What failed. */
  kind: "property" | "memory" | "hang";
  /** The seed of the batch that failed. */
  seed: number;
  /** The fast-check path of the counterexample within that batch. */
  path: string;
  /** The (shrunk) input, as fast-check prints it. */
  counterexample: string;
  /** The error. */
  error: string;
  /** Shrinking steps taken. */
  shrinks: number;
}

/** What a worker reports. */
export type WorkerMessage =
  | { kind: "batch"; seed: number; start: number }
  | { kind: "progress"; runs: number; heapUsed: number }
  /** The inputs are done; a check over all of them runs (not watched). */
  | { kind: "finishing" }
  | {
    kind: "done";
    runs: number;
    ms: number;
    heap: number[];
    failure?: Failure;
    notes?: string[];
  }
  | { kind: "crash"; error: string };
