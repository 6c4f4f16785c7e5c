/// <reference lib="deno.worker" />
/**
 * Runs one target in a worker, so that the main thread can stop it when an
 * input hangs. Inputs run in batches of fast-check runs, batch `k` with
 * seed `seed + k`; between batches the heap is measured after a full
 * collection.
 *
 * @module
 */
import fc from "fast-check";
import { PropertyFailure, type Target, TIME_BOUND_MS } from "./harness.ts";
import { TARGETS } from "./targets/mod.ts";
import type { Job, WorkerMessage } from "./protocol.ts";
import { runDifferential } from "./differential/h11.ts";

const MIB = 1024 * 1024;
/** Heap growth past the baseline that counts as unbounded. */
const HEAP_GROWTH_LIMIT = 96 * MIB;
/**
 * Tries of an input over its time bound before it fails: the bound is on
 * the best of them, so a collection or a descheduled thread (other work on
 * the machine) does not fail a fast input.
 */
const TRIES = 10;
/** Batches run before the heap baseline is taken (caches fill up). */
const WARMUP_BATCHES = 2;

const post = (message: WorkerMessage) => self.postMessage(message);
const gc = (globalThis as { gc?: () => void }).gc;

function heapNow(): number {
  gc?.();
  return Deno.memoryUsage().heapUsed;
}

/** Inputs explained by each known finding, by id. */
const knownHits = new Map<string, number>();

function knownNotes(): string[] {
  return [...knownHits].map(([id, n]) =>
    `known finding ${id}: ${
      n.toLocaleString("en-US")
    } input(s) (see FUZZING.md)`
  );
}

/** Whether `error` is a known finding's failure (then it is counted). */
function isKnown(target: Target<unknown>, error: unknown): boolean {
  if (!(error instanceof Error) || target.known === undefined) return false;
  const hit = target.known.find((k) => k.match.test(error.message));
  if (hit === undefined) return false;
  knownHits.set(hit.id, (knownHits.get(hit.id) ?? 0) + 1);
  return true;
}

/** The per-input wrapper: counts, times and re-times slow inputs. */
function guarded<T>(target: Target<T>, counter: Int32Array) {
  const bound = target.timeBoundMs ?? TIME_BOUND_MS;
  const known = (error: unknown) => {
    if (!isKnown(target as Target<unknown>, error)) throw error;
  };
  const slow = (ms: number) =>
    new PropertyFailure(
      `slow input: ${
        ms.toFixed(1)
      } ms (best of ${TRIES} tries) > bound ${bound} ms`,
    );
  if (target.async) {
    return async (input: T) => {
      Atomics.add(counter, 0, 1);
      let best = Infinity;
      for (let attempt = 0; attempt < TRIES && best > bound; attempt++) {
        const t0 = performance.now();
        try {
          await target.check(input);
        } catch (error) {
          return known(error);
        }
        best = Math.min(best, performance.now() - t0);
      }
      if (best > bound) throw slow(best);
    };
  }
  return (input: T) => {
    Atomics.add(counter, 0, 1);
    let best = Infinity;
    // A garbage collection can land in any input: only an input slow
    // every time fails.
    for (let attempt = 0; attempt < TRIES && best > bound; attempt++) {
      const t0 = performance.now();
      try {
        target.check(input);
      } catch (error) {
        return known(error);
      }
      best = Math.min(best, performance.now() - t0);
    }
    if (best > bound) throw slow(best);
  };
}

async function run(job: Job): Promise<void> {
  const counter = new Int32Array(job.counter);
  if (job.target === "h1-h11") {
    await runDifferential(job, counter, post);
    return;
  }
  const target = TARGETS.find((t) => t.name === job.target) as
    | Target<unknown>
    | undefined;
  if (target === undefined) throw new Error(`no target ${job.target}`);
  const arbitrary = await target.arbitrary();
  const check = guarded(target, counter);
  const property = target.async
    ? fc.asyncProperty(arbitrary, check as (x: unknown) => Promise<void>)
    : fc.property(arbitrary, check as (x: unknown) => void);
  const started = performance.now();
  const heap: number[] = [];
  let done = 0;
  for (let batch = 0; done < job.runs; batch++) {
    const seed = (job.seed + batch) | 0;
    const numRuns = Math.min(job.batch, job.runs - done);
    post({ kind: "batch", seed, start: done });
    const parameters: fc.Parameters<[unknown]> = {
      numRuns,
      seed,
      ...(job.path !== undefined ? { path: job.path } : {}),
    };
    const result = await fc.check(property, parameters);
    if (result.failed) {
      const error = result.errorInstance instanceof Error
        ? result.errorInstance.message
        : String(result.errorInstance);
      post({
        kind: "done",
        runs: done + result.numRuns,
        ms: performance.now() - started,
        heap,
        notes: knownNotes(),
        failure: {
          kind: "property",
          seed,
          path: result.counterexamplePath ?? "",
          counterexample: fc.stringify(result.counterexample?.[0]),
          error: error.slice(0, 2000),
          shrinks: result.numShrinks,
        },
      });
      return;
    }
    done += numRuns;
    if (job.path !== undefined) break;
    heap.push(heapNow());
    post({ kind: "progress", runs: done, heapUsed: heap.at(-1)! });
    if (heap.length > WARMUP_BATCHES + 2) {
      const base = heap[WARMUP_BATCHES]!;
      const recent = heap.slice(-3);
      if (recent.every((h) => h > base + HEAP_GROWTH_LIMIT)) {
        post({
          kind: "done",
          runs: done,
          ms: performance.now() - started,
          heap,
          failure: {
            kind: "memory",
            seed,
            path: "",
            counterexample: "",
            error: `heap grew from ${(base / MIB).toFixed(1)} MiB to ${
              (recent.at(-1)! / MIB).toFixed(1)
            } MiB (after a full collection)`,
            shrinks: 0,
          },
        });
        return;
      }
    }
  }
  if (target.finish) post({ kind: "finishing" });
  const end = await target.finish?.();
  const notes = knownNotes();
  post({
    kind: "done",
    runs: done,
    ms: performance.now() - started,
    heap,
    notes: [...notes, ...end?.notes ?? []],
    ...(end?.failure !== undefined
      ? {
        failure: {
          kind: "property" as const,
          seed: job.seed,
          path: "",
          counterexample: "",
          error: end.failure,
          shrinks: 0,
        },
      }
      : {}),
  });
}

self.onmessage = (event: MessageEvent<Job>) => {
  run(event.data).catch((error) => {
    post({
      kind: "crash",
      error: error instanceof Error ? `${error.stack}` : String(error),
    });
  });
};
