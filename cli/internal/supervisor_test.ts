import assert from "node:assert/strict";
import { MetricRegistries, type MetricsState } from "@org/metrics";
import type { ServeConfig } from "../config.ts";
import { ListenError } from "../errors.ts";
import { Supervisor } from "./supervisor.ts";
import type { FromWorker, ToWorker, WorkerLike } from "./worker_protocol.ts";

const CONFIG: ServeConfig = {
  root: "/srv",
  port: 0,
  bind: "127.0.0.1",
  notFoundPage: true,
  dirListing: false,
  dotfiles: "ignore",
  cacheRules: [],
  compress: false,
  logFormat: "default",
  gzip: true,
  headers: [],
  staging: false,
  logLevel: "info",
  accessLog: false,
  workers: 3,
  drainTimeoutMs: 10_000,
};

/** A stand-in worker: answers "start" with "listening" (or a failure) and "stop" with "stopped". */
class FakeWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  received: ToWorker[] = [];
  terminated = false;
  /** The metrics state it answers "state" with; `undefined` never answers. */
  state?: MetricsState;
  constructor(readonly id: number, readonly fail?: ListenError) {}

  postMessage(message: ToWorker): void {
    this.received.push(message);
    queueMicrotask(() => {
      if (message.type === "start") {
        const port = message.port === 0 ? 40000 : message.port;
        this.#send(
          this.fail
            ? {
              type: "failed",
              id: this.id,
              code: this.fail.code,
              message: this.fail.message,
            }
            : { type: "listening", id: this.id, port },
        );
      } else if (message.type === "state") {
        if (this.state) {
          this.#send({
            type: "state",
            id: this.id,
            request: message.request,
            state: this.state,
          });
        }
      } else {
        this.#send({ type: "stopped", id: this.id });
      }
    });
  }

  terminate(): void {
    this.terminated = true;
  }

  crash(): void {
    this.onerror?.(
      new ErrorEvent("error", { message: "boom", cancelable: true }),
    );
  }

  #send(data: FromWorker): void {
    this.onmessage?.(new MessageEvent("message", { data }));
  }
}

Deno.test("Supervisor starts worker 1 on the configured port, then the others on the port it got", async () => {
  const workers: FakeWorker[] = [];
  const supervisor = new Supervisor({
    count: 3,
    config: CONFIG,
    spawn: (id) => workers[workers.push(new FakeWorker(id)) - 1]!,
  });
  assert.equal(await supervisor.start(), 40000);
  assert.deepEqual(workers.map((w) => w.received[0]), [
    { type: "start", id: 1, config: CONFIG, port: 0, logsOpen: false },
    { type: "start", id: 2, config: CONFIG, port: 40000, logsOpen: false },
    { type: "start", id: 3, config: CONFIG, port: 40000, logsOpen: false },
  ]);
  await supervisor.stop();
  assert.ok(
    workers.every((w) => w.received.at(-1)?.type === "stop" && w.terminated),
  );
});

Deno.test("Supervisor restarts a crashed worker on the same port, with its access log open once opened", async () => {
  const workers: FakeWorker[] = [];
  const restarts: number[] = [];
  const supervisor = new Supervisor({
    count: 2,
    config: CONFIG,
    restartDelayMs: 1,
    spawn: (id) => workers[workers.push(new FakeWorker(id)) - 1]!,
    onRestart: (id) => restarts.push(id),
  });
  await supervisor.start();
  supervisor.openLogs();
  assert.deepEqual(workers.map((w) => w.received.at(-1)), [
    { type: "open-logs" },
    { type: "open-logs" },
  ]);
  workers[1]!.crash();
  assert.equal(workers[1]!.terminated, true);
  for (let i = 0; i < 100 && workers.length < 3; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(workers.length, 3);
  assert.deepEqual(restarts, [2]);
  assert.deepEqual(workers[2]!.received[0], {
    type: "start",
    id: 2,
    config: CONFIG,
    port: 40000,
    logsOpen: true,
  });
  assert.equal(supervisor.restarts, 1);
  await supervisor.stop();
});

Deno.test("Supervisor fails the start with the worker's ListenError and restarts nothing", async () => {
  const workers: FakeWorker[] = [];
  const error = new ListenError(
    "addr-in-use",
    "Cannot listen on 127.0.0.1:80: address already in use",
  );
  const supervisor = new Supervisor({
    count: 2,
    config: CONFIG,
    restartDelayMs: 1,
    spawn: (id) => workers[workers.push(new FakeWorker(id, error)) - 1]!,
  });
  await assert.rejects(
    supervisor.start(),
    (e: unknown) => e instanceof ListenError && e.code === "addr-in-use",
  );
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(workers.length, 1);
  assert.equal(workers[0]!.terminated, true);
});

/** A state with one application counter `hits` at `count`. */
function hits(count: number): MetricsState {
  const registries = new MetricRegistries();
  registries.get().counter("hits").inc(count);
  return registries.state();
}

function hitsIn(state: MetricsState): number | null | undefined {
  return state.scopes.find((s) => s.scope === "application")?.metrics
    .find((m) => m.name === "hits")?.series[0]?.value;
}

Deno.test("Supervisor.collect() sums every worker's metrics and the main thread's own", async () => {
  const workers: FakeWorker[] = [];
  const supervisor = new Supervisor({
    count: 3,
    config: CONFIG,
    spawn: (id) => workers[workers.push(new FakeWorker(id)) - 1]!,
    localState: () => hits(1000),
  });
  await supervisor.start();
  workers.forEach((w, i) => w.state = hits(i + 1));
  assert.equal(hitsIn(await supervisor.collect({})), 1006);
  assert.ok(workers.every((w) => w.received.some((m) => m.type === "state")));
  await supervisor.stop();
});

Deno.test("Supervisor.collect() leaves out a worker that does not answer in time", async () => {
  const workers: FakeWorker[] = [];
  const supervisor = new Supervisor({
    count: 2,
    config: CONFIG,
    spawn: (id) => workers[workers.push(new FakeWorker(id)) - 1]!,
    collectTimeoutMs: 20,
  });
  await supervisor.start();
  workers[0]!.state = hits(5);
  const started = performance.now();
  assert.equal(hitsIn(await supervisor.collect({})), 5);
  assert.ok(performance.now() - started >= 15);
  await supervisor.stop();
});

Deno.test("Supervisor answers a worker's collect message with the sum", async () => {
  const workers: FakeWorker[] = [];
  const supervisor = new Supervisor({
    count: 2,
    config: CONFIG,
    spawn: (id) => workers[workers.push(new FakeWorker(id)) - 1]!,
  });
  await supervisor.start();
  workers[0]!.state = hits(2);
  workers[1]!.state = hits(3);
  workers[1]!.onmessage?.(
    new MessageEvent("message", {
      data: { type: "collect", id: 2, request: 7, filter: {} },
    }),
  );
  for (let i = 0; i < 100; i++) {
    if (workers[1]!.received.some((m) => m.type === "collected")) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const answer = workers[1]!.received.find((m) => m.type === "collected");
  assert.ok(answer?.type === "collected");
  assert.equal(answer.request, 7);
  assert.equal(hitsIn(answer.state), 5);
  await supervisor.stop();
});
