/**
 * Runs `--workers N` servers on worker threads that share one port through
 * `SO_REUSEPORT` (the kernel spreads new connections across them), and
 * restarts a worker that crashes.
 *
 * ```
 *   start() ── worker 1 binds the port (0 = a free one) ──► port known
 *           └─ workers 2..N bind the same port ─────────────► all listening
 *   crash   ── terminate, wait (backoff) ── start again on the same port
 *   drain() ── "drain" to each: readiness answers 503, serving goes on
 *   stop()  ── "stop" to each ── "stopped" (or a timeout) ── terminate
 *   collect ── "state" to each ── answers within 1 s + own ── mergeStates
 * ```
 *
 * @module
 */
import { mergeStates, type MetricsState, type StateFilter } from "@org/metrics";
import type { ServeConfig } from "../config.ts";
import { ListenError, ModuleError, UsageError } from "../errors.ts";
import type { AppFailure, FromWorker, WorkerLike } from "./worker_protocol.ts";

/** The first wait before restarting a crashed worker. */
export const RESTART_DELAY_MS = 100;
/** The longest wait between restarts of a worker that keeps crashing. */
export const MAX_RESTART_DELAY_MS = 5_000;
/** A worker that ran this long without crashing starts over at the first delay. */
export const STABLE_AFTER_MS = 10_000;
/** How long a worker may take to drain on stop before it is terminated. */
export const STOP_TIMEOUT_MS = 15_000;
/**
 * How long a scrape waits for the workers' metrics; a worker that does not
 * answer in time (busy, restarting) is left out rather than failing the
 * scrape, whose client usually times out after 10 s.
 */
export const COLLECT_TIMEOUT_MS = 1_000;

/** Options of {@linkcode Supervisor}. */
export interface SupervisorOptions {
  /** How many workers. */
  count: number;
  /** The configuration each worker serves. */
  config: ServeConfig;
  /** Creates a worker; default a module `Worker` running `worker_main.ts`. */
  spawn?: (id: number) => WorkerLike;
  /** Told about each restart, for a warning line. */
  onRestart?: (id: number, reason: string, delayMs: number) => void;
  /** The first restart delay. Default {@linkcode RESTART_DELAY_MS}. */
  restartDelayMs?: number;
  /** The main thread's own metrics, added to the workers' on a scrape. */
  localState?: (filter: StateFilter) => MetricsState;
  /** How long a scrape waits for workers. Default {@linkcode COLLECT_TIMEOUT_MS}. */
  collectTimeoutMs?: number;
}

/** A scrape waiting for the workers' states. */
interface Collection {
  states: MetricsState[];
  waiting: number;
  done: PromiseWithResolvers<void>;
}

interface Slot {
  id: number;
  worker: WorkerLike;
  startedAt: number;
  delayMs: number;
  listening: PromiseWithResolvers<number>;
  stopped: PromiseWithResolvers<void>;
  timer?: ReturnType<typeof setTimeout>;
}

/** Starts, restarts and stops the workers. */
export class Supervisor {
  #options: SupervisorOptions;
  #spawn: (id: number) => WorkerLike;
  #slots = new Map<number, Slot>();
  #port = 0;
  #stopping = false;
  #started = false;
  #logsOpen = false;
  #draining = false;
  #restarts = 0;
  #collections = new Map<number, Collection>();
  #lastCollection = 0;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#spawn = options.spawn ?? defaultSpawn;
  }

  /** The shared port, once {@linkcode Supervisor.start} resolved. */
  get port(): number {
    return this.#port;
  }

  /** How many times a worker was restarted. */
  get restarts(): number {
    return this.#restarts;
  }

  /**
   * Starts worker 1, learns the port, then starts the others on it.
   *
   * @throws {ListenError} When a worker cannot bind; the others are stopped.
   */
  async start(): Promise<number> {
    const { count, config } = this.#options;
    try {
      this.#port = await this.#launch(
        1,
        config.port,
        this.#options.restartDelayMs ?? RESTART_DELAY_MS,
      );
      const rest = [];
      for (let id = 2; id <= count; id++) {
        rest.push(
          this.#launch(
            id,
            this.#port,
            this.#options.restartDelayMs ?? RESTART_DELAY_MS,
          ),
        );
      }
      await Promise.all(rest);
      this.#started = true;
    } catch (error) {
      await this.stop();
      throw error;
    }
    return this.#port;
  }

  /**
   * Lets every worker write its access-log lines, now and after restarts:
   * called once the launcher printed its own first lines, which must come
   * first.
   */
  openLogs(): void {
    if (this.#logsOpen) return;
    this.#logsOpen = true;
    for (const slot of this.#slots.values()) {
      try {
        slot.worker.postMessage({ type: "open-logs" });
      } catch {
        // Terminated (crashed): its restart starts with logs open.
      }
    }
  }

  /**
   * Tells the first worker to call the `run` module's `onListen`, as
   * `deno serve` does once: called after the launcher's first lines.
   */
  announce(): void {
    try {
      this.#slots.get(1)?.worker.postMessage({ type: "on-listen" });
    } catch {
      // Terminated (crashed): its restart is no first listen.
    }
  }

  /**
   * Asks every worker to read the htpasswd file again (SIGHUP); a worker
   * restarted later reads it when it starts.
   */
  reload(): void {
    for (const slot of this.#slots.values()) {
      try {
        slot.worker.postMessage({ type: "reload" });
      } catch {
        // Terminated (crashed): its restart reads the file anew.
      }
    }
  }

  /**
   * Turns every worker's readiness path to 503 ahead of the stop; a worker
   * restarted after this starts draining.
   */
  drain(): void {
    this.#draining = true;
    for (const slot of this.#slots.values()) {
      try {
        slot.worker.postMessage({ type: "drain" });
      } catch {
        // Terminated (crashed): its restart is told in its start message.
      }
    }
  }

  /** Asks every worker to drain and stop, then terminates it. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      [...this.#slots.values()].map((slot) => this.#stopSlot(slot)),
    );
    this.#slots.clear();
  }

  /**
   * Sums the metrics of every worker that answers within the collect
   * timeout and the main thread's own.
   *
   * @param filter The scope and name a scrape asks for.
   */
  async collect(filter: StateFilter): Promise<MetricsState> {
    const request = ++this.#lastCollection;
    const collection: Collection = {
      states: [],
      waiting: 0,
      done: Promise.withResolvers<void>(),
    };
    this.#collections.set(request, collection);
    for (const slot of this.#slots.values()) {
      try {
        slot.worker.postMessage({ type: "state", request, filter });
        collection.waiting++;
      } catch {
        // Terminated (crashed, waiting for its restart): left out.
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (collection.waiting > 0) {
      await Promise.race([
        collection.done.promise,
        new Promise<void>((resolve) =>
          timer = setTimeout(
            resolve,
            this.#options.collectTimeoutMs ?? COLLECT_TIMEOUT_MS,
          )
        ),
      ]);
    }
    clearTimeout(timer);
    this.#collections.delete(request);
    const local = this.#options.localState?.(filter);
    return mergeStates(
      local ? [local, ...collection.states] : collection.states,
    );
  }

  async #stopSlot(slot: Slot): Promise<void> {
    clearTimeout(slot.timer);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      try {
        slot.worker.postMessage({ type: "stop" });
      } catch {
        return; // Already terminated after a crash.
      }
      await Promise.race([
        slot.stopped.promise,
        new Promise<void>((resolve) =>
          timer = setTimeout(resolve, STOP_TIMEOUT_MS)
        ),
      ]);
    } finally {
      clearTimeout(timer);
      slot.worker.terminate();
    }
  }

  #launch(id: number, port: number, delayMs: number): Promise<number> {
    const worker = this.#spawn(id);
    const slot: Slot = {
      id,
      worker,
      startedAt: Date.now(),
      delayMs,
      listening: Promise.withResolvers<number>(),
      stopped: Promise.withResolvers<void>(),
    };
    slot.listening.promise.catch(() => {}); // Restarts read it only for first starts.
    this.#slots.set(id, slot);
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const message = event.data;
      if (message.type === "listening") slot.listening.resolve(message.port);
      else if (message.type === "stopped") slot.stopped.resolve();
      else if (message.type === "collect") {
        this.collect(message.filter).then((state) => {
          try {
            slot.worker.postMessage({
              type: "collected",
              request: message.request,
              state,
            });
          } catch {
            // The worker was terminated meanwhile.
          }
        }).catch(() => {
          // Unanswered: the worker publishes its own metrics after its wait.
        });
      } else if (message.type === "state") {
        const collection = this.#collections.get(message.request);
        if (collection !== undefined) {
          collection.states.push(message.state);
          if (--collection.waiting === 0) collection.done.resolve();
        }
      } else if (message.type === "failed") {
        const error = new ListenError(message.code, message.message);
        slot.listening.reject(error);
        this.#crashed(slot, message.message);
      } else if (message.type === "app-failed") {
        slot.listening.reject(appError(message.error));
        this.#crashed(slot, message.error.message);
      }
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      const reason = event.message || "uncaught error";
      slot.listening.reject(new Error(`Worker ${id} crashed: ${reason}`));
      this.#crashed(slot, reason);
    };
    worker.postMessage({
      type: "start",
      id,
      config: this.#options.config,
      port,
      logsOpen: this.#logsOpen,
      ...(this.#draining ? { draining: true } : {}),
    });
    return slot.listening.promise;
  }

  #crashed(slot: Slot, reason: string): void {
    slot.stopped.resolve();
    // Before start() resolves, a failure fails the start instead.
    if (!this.#started || this.#stopping || this.#slots.get(slot.id) !== slot) {
      return;
    }
    slot.worker.terminate();
    const first = this.#options.restartDelayMs ?? RESTART_DELAY_MS;
    const stable = Date.now() - slot.startedAt >= STABLE_AFTER_MS;
    const delayMs = stable
      ? first
      : Math.min(slot.delayMs * 2, MAX_RESTART_DELAY_MS);
    const waitMs = stable ? first : slot.delayMs;
    this.#options.onRestart?.(slot.id, reason, waitMs);
    slot.timer = setTimeout(() => {
      if (this.#stopping) return;
      this.#restarts++;
      this.#launch(slot.id, this.#port, delayMs).catch(() => {});
    }, waitMs);
  }
}

/** The error a worker reported about the module, as the main thread's own. */
function appError(failure: AppFailure): UsageError | ModuleError {
  return failure.kind === "usage"
    ? new UsageError(failure.code, failure.message)
    : new ModuleError(failure.code, failure.message);
}

function defaultSpawn(id: number): WorkerLike {
  return new Worker(new URL("./worker_main.ts", import.meta.url), {
    type: "module",
    name: `httpd-cli worker ${id}`,
  }) as unknown as WorkerLike;
}
