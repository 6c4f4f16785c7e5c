/**
 * The liveness and readiness paths of `--health` and `--ready`, answered
 * in front of everything else (access log, metrics, authentication, the
 * files or the module), so a probe costs a path comparison and is never
 * refused by a password or counted as traffic.
 *
 * Readiness follows a {@linkcode Readiness}: `200` while the instance takes
 * traffic, `503` from the moment a stop is asked for, so a load balancer
 * takes it out of rotation before its listener closes. Liveness stays
 * `200` until the process ends: a draining instance is alive, and an
 * orchestrator that restarted it would cut its open requests.
 *
 * @module
 */
import { Filter, type Handler, type Request, Response } from "@org/httpd";

/** Whether this instance takes new traffic; shared by a server's handler and whoever stops it. */
export class Readiness {
  #ready = true;

  /** `true` until {@linkcode Readiness.drain}. */
  get ready(): boolean {
    return this.#ready;
  }

  /** From now on the readiness path answers `503`, and keep-alive connections are asked to close. */
  drain(): void {
    this.#ready = false;
  }
}

/** The paths to answer, as configured. */
export interface ProbePaths {
  /** The liveness path (`--health`), when set. */
  health?: string | undefined;
  /** The readiness path (`--ready`), when set. */
  ready?: string | undefined;
}

/** Answers GET and HEAD; other methods learn which ones work. */
const PROBE_METHODS = "GET, HEAD";

/**
 * Puts the probe paths in front of `handler`. While draining, every other
 * HTTP/1.x answer carries `Connection: close`, so a client or balancer
 * that keeps connections open reconnects elsewhere rather than reusing
 * this instance until its listener closes (HTTP/2 drops the field and
 * gets GOAWAY at the stop).
 *
 * @param handler The launcher's handler.
 * @param paths The liveness and readiness paths.
 * @param readiness The state the readiness path reports.
 * @returns The handler with the probes in front.
 *
 * @example Ready, then draining
 * ```ts
 * import assert from "node:assert/strict";
 * import { Request, Response } from "@org/httpd";
 * import { Readiness, withProbes } from "./probes.ts";
 *
 * const readiness = new Readiness();
 * const handler = withProbes(() => Response.text("app"), { ready: "/readyz" }, readiness);
 * assert.equal((await handler(new Request("/readyz"))).status, 200);
 * readiness.drain();
 * assert.equal((await handler(new Request("/readyz"))).status, 503);
 * ```
 */
export function withProbes(
  handler: Handler,
  paths: ProbePaths,
  readiness: Readiness,
): Handler {
  const { health, ready } = paths;
  const probe = (req: Request, status: number, text: string): Response => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      const res = Response.text("Method Not Allowed\n", { status: 405 });
      res.headers.set("allow", PROBE_METHODS);
      return noStore(res);
    }
    return noStore(Response.text(text, { status }));
  };
  const closeWhileDraining = (req: Request, res: Response): Response => {
    if (!readiness.ready && req.protocol !== "HTTP/2") {
      res.headers.set("connection", "close");
    }
    return res;
  };
  return Filter.of((next) => (req) => {
    const path = req.path;
    if (path === health) return probe(req, 200, "ok\n");
    if (path === ready) {
      return readiness.ready
        ? probe(req, 200, "ready\n")
        : probe(req, 503, "draining\n");
    }
    if (readiness.ready) return next(req);
    const res = next(req);
    return res instanceof Promise
      ? res.then((r) => closeWhileDraining(req, r))
      : closeWhileDraining(req, res);
  }).apply(handler);
}

function noStore(res: Response): Response {
  res.headers.set("cache-control", "no-store");
  return res;
}
