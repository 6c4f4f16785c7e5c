/**
 * The messages between the launcher's main thread and its workers.
 *
 * With `--metrics`, a worker answering a scrape sends `collect`; the main
 * thread sends `state` to every worker, each answers `state` with its
 * registries' state, and the main thread answers the asking worker with
 * `collected`: the sum of the answers that came in time and its own.
 *
 * @module
 */
import type { MetricsState, StateFilter } from "@org/metrics";
import type { ServeConfig } from "../config.ts";
import type {
  ListenErrorCode,
  ModuleErrorCode,
  UsageErrorCode,
} from "../errors.ts";

/** Main thread → worker. */
export type ToWorker =
  | {
    type: "start";
    id: number;
    config: ServeConfig;
    port: number;
    /** Whether access-log lines may be written at once (after the launcher's first lines). */
    logsOpen: boolean;
    /** Whether the stop has begun: readiness answers 503 from the start. */
    draining?: boolean;
  }
  | { type: "open-logs" }
  /** Calls the `run` module's `onListen` (sent to the first worker, once). */
  | { type: "on-listen" }
  | { type: "reload" }
  /** Readiness answers 503 from now on; serving goes on until "stop". */
  | { type: "drain" }
  | { type: "stop" }
  | { type: "state"; request: number; filter: StateFilter }
  | { type: "collected"; request: number; state: MetricsState };

/** Worker → main thread. */
export type FromWorker =
  | { type: "listening"; id: number; port: number }
  | { type: "failed"; id: number; code: ListenErrorCode; message: string }
  /** The module of `run` could not be used: what the launcher reports. */
  | { type: "app-failed"; id: number; error: AppFailure }
  | { type: "stopped"; id: number }
  | { type: "collect"; id: number; request: number; filter: StateFilter }
  | { type: "state"; id: number; request: number; state: MetricsState };

/** Why a worker could not use the module of `run`, as plain data. */
export type AppFailure =
  | { kind: "usage"; code: UsageErrorCode; message: string }
  | { kind: "module"; code: ModuleErrorCode; message: string };

/** The part of a `Worker` the supervisor uses, so tests can stand in for it. */
export interface WorkerLike {
  postMessage(message: ToWorker): void;
  terminate(): void;
  onmessage: ((event: MessageEvent<FromWorker>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
}
