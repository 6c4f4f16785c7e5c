/**
 * The fuzzing campaign (`deno task fuzz`): every parser of the workspace
 * driven by fast-check generators, each in a worker watched for hangs.
 *
 * ```
 * deno task fuzz [--runs N] [--only NAME[,NAME]] [--seed S] [--jobs J]
 *                [--ci] [--replay SEED:PATH] [--report FILE] [--list]
 * ```
 *
 * - `--runs N`: inputs per parser (default 1,000,000).
 * - `--only`: the parsers to run (`--list` prints their names).
 * - `--seed S`: the campaign seed (default: random, printed); batch `k`
 *   of a parser uses seed `S + k`.
 * - `--jobs J`: parsers run at once, one worker each (default 2).
 * - `--ci`: the fixed-seed slice `deno task test` runs: each parser's
 *   `ciRuns` inputs with seed 26, in under a minute on two cores.
 * - `--replay SEED:PATH`: replays one failure that a run printed (with
 *   `--only NAME`).
 * - `--report FILE`: also writes the results as JSON.
 * - `--time-limit MINUTES`: stops the parsers still running then (SIGINT
 *   and SIGTERM do the same) and reports the count each reached.
 *
 * Prints one line per parser with its input count, and exits 1 when any
 * property failed, the heap grew without bound, or an input hung.
 *
 * @module
 */
import { TARGETS } from "./targets/mod.ts";
import type { Failure, Job, WorkerMessage } from "./protocol.ts";

/** Inputs per batch: progress and a heap sample after each. */
const BATCH = 10_000;
/** No input finished for this long: the worker is stopped as hung. */
const HANG_MS = 10_000;
/** The differential's input count in the CI slice. */
const DIFF_CI_RUNS = 3_000;
const CI_SEED = 26;

interface Options {
  runs: number | undefined;
  only: string[] | undefined;
  seed: number;
  jobs: number;
  ci: boolean;
  replay: { seed: number; path: string } | undefined;
  report: string | undefined;
  list: boolean;
  timeLimitMinutes: number | undefined;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    runs: undefined,
    only: undefined,
    seed: (Math.random() * 2 ** 31) | 0,
    jobs: 2,
    ci: false,
    replay: undefined,
    report: undefined,
    list: false,
    timeLimitMinutes: undefined,
  };
  let seedGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string => {
      const v = args[++i];
      if (v === undefined) throw new TypeError(`Missing value after ${arg}`);
      return v;
    };
    switch (arg) {
      case "--runs":
        options.runs = Number(value().replace(/[_,]/g, ""));
        break;
      case "--only":
        options.only = value().split(",");
        break;
      case "--seed":
        options.seed = Number(value()) | 0;
        seedGiven = true;
        break;
      case "--jobs":
        options.jobs = Math.max(1, Number(value()));
        break;
      case "--ci":
        options.ci = true;
        break;
      case "--replay": {
        const [seed, ...path] = value().split(":");
        options.replay = { seed: Number(seed) | 0, path: path.join(":") };
        break;
      }
      case "--report":
        options.report = value();
        break;
      case "--list":
        options.list = true;
        break;
      case "--time-limit":
        options.timeLimitMinutes = Number(value());
        break;
      default:
        throw new TypeError(`Unknown argument ${arg}`);
    }
  }
  if (options.ci && !seedGiven) options.seed = CI_SEED;
  return options;
}

/** Every runnable name: the targets, then the differential. */
const NAMES = [...TARGETS.map((t) => t.name), "h1-h11"];

function runsFor(name: string, options: Options): number {
  if (options.runs !== undefined) return options.runs;
  if (options.ci) {
    return TARGETS.find((t) => t.name === name)?.ciRuns ?? DIFF_CI_RUNS;
  }
  return 1_000_000;
}

interface Result {
  name: string;
  runs: number;
  ms: number;
  heap: number[];
  failure?: Failure;
  notes?: string[];
  /** Stopped by `--time-limit` (or a signal) before its count. */
  stopped?: boolean;
}

/** The parsers running now: how to stop each, and its input count. */
const running = new Map<string, { stop: () => void; runs: () => number }>();

function runOne(name: string, options: Options): Promise<Result> {
  const counter = new SharedArrayBuffer(4);
  const count = new Int32Array(counter);
  const job: Job = {
    target: name,
    runs: options.replay ? 1 : runsFor(name, options),
    seed: options.replay ? options.replay.seed : options.seed,
    batch: BATCH,
    counter,
    ...(options.replay ? { path: options.replay.path } : {}),
    ...(options.report ? { report: `${options.report}.${name}.json` } : {}),
  };
  const worker = new Worker(new URL("./worker.ts", import.meta.url), {
    type: "module",
  });
  const started = performance.now();
  return new Promise((resolve) => {
    let batchSeed = job.seed;
    let batchStart = 0;
    let watching = false;
    let last = -1;
    let lastChange = performance.now();
    let runs = 0;
    const heap: number[] = [];
    const finish = (result: Result) => {
      clearInterval(timer);
      worker.terminate();
      running.delete(name);
      resolve(result);
    };
    running.set(name, {
      runs: () => Atomics.load(count, 0),
      stop: () =>
        finish({
          name,
          runs: Atomics.load(count, 0),
          ms: performance.now() - started,
          heap,
          stopped: true,
        }),
    });
    const timer = setInterval(() => {
      const now = performance.now();
      const seen = Atomics.load(count, 0);
      if (seen !== last) {
        last = seen;
        lastChange = now;
        return;
      }
      if (!watching || now - lastChange < HANG_MS) return;
      finish({
        name,
        runs: seen,
        ms: now - started,
        heap,
        failure: {
          kind: "hang",
          seed: batchSeed,
          path: String(Math.max(0, seen - batchStart - 1)),
          counterexample: "",
          error: `no input finished for ${HANG_MS / 1000} s (input ${seen})`,
          shrinks: 0,
        },
      });
    }, 1000);
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const m = event.data;
      switch (m.kind) {
        case "batch":
          watching = true;
          batchSeed = m.seed;
          batchStart = Atomics.load(count, 0);
          break;
        case "finishing":
          // A whole-run check (promtool) takes its own time: no watchdog.
          watching = false;
          break;
        case "progress":
          runs = m.runs;
          heap.push(m.heapUsed);
          break;
        case "done":
          finish({ name, ...m });
          break;
        case "crash":
          finish({
            name,
            runs,
            ms: performance.now() - started,
            heap,
            failure: {
              kind: "property",
              seed: batchSeed,
              path: "",
              counterexample: "",
              error: `worker crashed: ${m.error}`,
              shrinks: 0,
            },
          });
          break;
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      finish({
        name,
        runs,
        ms: performance.now() - started,
        heap,
        failure: {
          kind: "property",
          seed: batchSeed,
          path: "",
          counterexample: "",
          error: `worker error: ${event.message}`,
          shrinks: 0,
        },
      });
    };
    worker.postMessage(job);
  });
}

const MIB = 1024 * 1024;

function line(result: Result): string {
  const heap = result.heap.length > 0
    ? `  heap ${(Math.min(...result.heap) / MIB).toFixed(1)}-${
      (Math.max(...result.heap) / MIB).toFixed(1)
    } MiB`
    : "";
  const status = result.failure
    ? `FAILED (${result.failure.kind})`
    : result.stopped
    ? "STOPPED (time limit), no failure"
    : "ok";
  return `${result.name.padEnd(18)} ${
    result.runs.toLocaleString("en-US").padStart(11)
  } inputs ${(result.ms / 1000).toFixed(1).padStart(8)} s  ${status}${heap}`;
}

function write(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

async function main(): Promise<number> {
  const options = parseArgs(Deno.args);
  if (options.list) {
    for (const name of NAMES) write(name);
    return 0;
  }
  const names = options.only ?? NAMES;
  for (const name of names) {
    if (!NAMES.includes(name)) {
      throw new TypeError(`Unknown parser "${name}"; --list prints them`);
    }
  }
  if (options.replay && names.length !== 1) {
    throw new TypeError("--replay needs --only with one parser");
  }
  write(
    options.replay
      ? `fuzz: replaying ${
        names[0]
      } seed ${options.replay.seed} path ${options.replay.path}`
      : `fuzz: ${names.length} parser(s), seed ${options.seed}, ${options.jobs} job(s)${
        options.ci ? ", CI slice" : ""
      }`,
  );
  const started = performance.now();
  const queue = [...names];
  let stopping = false;
  const stopAll = () => {
    if (stopping) return;
    stopping = true;
    for (const name of queue.splice(0)) {
      write(`${name.padEnd(18)} not run (time limit)`);
    }
    for (const job of [...running.values()]) job.stop();
  };
  const limit = options.timeLimitMinutes === undefined
    ? undefined
    : setTimeout(stopAll, options.timeLimitMinutes * 60_000);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, stopAll);
  }
  // A progress line a minute, for whoever watches a long run.
  const progress = setInterval(() => {
    for (const [name, job] of running) {
      write(
        `  progress: ${name} ${job.runs().toLocaleString("en-US")} inputs, ${
          ((performance.now() - started) / 1000).toFixed(0)
        } s into the run`,
      );
    }
  }, 60_000);
  const results: Result[] = [];
  const workers = Array.from(
    { length: Math.min(options.jobs, names.length) },
    async () => {
      for (let name = queue.shift(); name; name = queue.shift()) {
        const result = await runOne(name, options);
        results.push(result);
        write(line(result));
        for (const note of result.notes ?? []) write(`  ${note}`);
        const f = result.failure;
        if (f) {
          write(`  ${f.error}`);
          if (f.counterexample) write(`  input: ${f.counterexample}`);
          write(
            `  replay: deno task fuzz --only ${name} --replay ${f.seed}:${f.path}`,
          );
        }
      }
    },
  );
  await Promise.all(workers);
  clearTimeout(limit);
  clearInterval(progress);
  const failed = results.filter((r) => r.failure);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.removeSignalListener(signal, stopAll);
  }
  const total = results.reduce((n, r) => n + r.runs, 0);
  write(
    `fuzz: ${total.toLocaleString("en-US")} inputs in ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s, ${failed.length} parser(s) failed (seed ${options.seed})`,
  );
  if (options.report) {
    await Deno.writeTextFile(
      options.report,
      JSON.stringify({ seed: options.seed, results }, null, 2) + "\n",
    );
  }
  return failed.length > 0 ? 1 : 0;
}

Deno.exit(await main());
