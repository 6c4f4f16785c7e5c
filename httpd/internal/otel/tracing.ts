/**
 * A server span per request through `@opentelemetry/api`, for servers whose
 * process has OpenTelemetry: Deno's built-in telemetry (`OTEL_DENO=true`)
 * or an OpenTelemetry JS SDK that registered itself. The API package is
 * imported only then, on first use; a server without it holds no
 * {@linkcode RequestTracing} and `dispatch()` pays one field check.
 *
 * Per request: the span continues the caller's trace (`traceparent`), is
 * the active span while the handler runs (the application's spans and
 * `fetch` calls nest under it), gets its name and status from the response
 * (`GET /users/:id`), and ends when the request's exchange settles: the
 * last byte of the response written, or the delivery failed.
 *
 * @module
 */
import type { Context, Span, TextMapGetter, Tracer } from "@opentelemetry/api";
import { PACKAGE_VERSION } from "../../build_info.ts";
import type { HttpHeaders } from "../../headers.ts";
import {
  exchangeOf,
  type FailureReporter,
  type Request,
  setFailureReporter,
} from "../../request.ts";
import type { Response } from "../../response.ts";
import type { ServerContext } from "../conn/types.ts";
import { callHandler } from "../dispatch.ts";
import { isExtendedConnect } from "../ws/upgrade.ts";
import { errorType, requestAttributes, spanName } from "./attributes.ts";
import { parseTraceparent } from "./traceparent.ts";

type Api = typeof import("@opentelemetry/api");

/**
 * Where `@opentelemetry/api` 1.x keeps the registered tracer provider,
 * context manager and propagator, on `globalThis`. Deno's built-in
 * telemetry sets it at start-up when `OTEL_DENO=true` (and only then), an
 * OpenTelemetry JS SDK when it registers; its presence tells, without
 * importing anything or reading the environment (which needs a
 * permission), that spans would go somewhere.
 */
const API_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The instrumentation scope of the spans: this package. */
const TRACER_NAME = "@org/httpd";

/** The W3C Trace Context field a propagator reads (W3C Trace Context, section 3.2). */
const TRACEPARENT = "traceparent";

/**
 * Whether OpenTelemetry is registered in this process.
 *
 * @returns `true` when an OpenTelemetry API registration is present.
 *
 * @example Registered with `OTEL_DENO=true` only (no SDK here)
 * ```ts
 * import assert from "node:assert/strict";
 * import { otelRegistered } from "./tracing.ts";
 *
 * assert.equal(otelRegistered(), Deno.env.get("OTEL_DENO") === "true");
 * ```
 */
export function otelRegistered(): boolean {
  return API_GLOBAL in globalThis;
}

let loading: Promise<Api | undefined> | undefined;

/**
 * Imports `@opentelemetry/api`, once per process. A failure (the package
 * cannot be resolved) is reported once and leaves tracing off.
 */
function loadApi(): Promise<Api | undefined> {
  return loading ??= import("@opentelemetry/api").then(
    (api) => api,
    (error) => {
      // deno-lint-ignore no-console
      console.error(
        `httpd: requests are not traced: cannot load @opentelemetry/api: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
      return undefined;
    },
  );
}

/**
 * Whether anything asked for `@opentelemetry/api` in this process: a
 * server whose process has no OpenTelemetry never does.
 *
 * @returns `true` once the import has started.
 *
 * @example A server with tracing off loads nothing
 * ```ts
 * import assert from "node:assert/strict";
 * import { apiRequested, tracingFor } from "./tracing.ts";
 *
 * assert.equal(tracingFor(false), undefined);
 * assert.equal(apiRequested(), false);
 * ```
 */
export function apiRequested(): boolean {
  return loading !== undefined;
}

let shared: RequestTracing | undefined;

/**
 * The tracing of a server with this option: on when asked (`true`), or by
 * default when OpenTelemetry is registered in the process
 * ({@linkcode otelRegistered}); off with `false`. Starts importing the API
 * when on.
 *
 * @param option The server's `tracing` option.
 * @returns The process's request tracing, or `undefined` when off.
 *
 * @example Off when asked
 * ```ts
 * import assert from "node:assert/strict";
 * import { tracingFor } from "./tracing.ts";
 *
 * assert.equal(tracingFor(false), undefined);
 * ```
 */
export function tracingFor(
  option: boolean | undefined,
): RequestTracing | undefined {
  if (!(option ?? otelRegistered())) return undefined;
  return shared ??= new RequestTracing();
}

/**
 * Reads header fields for a propagator. Typed in full: code that checks
 * this package where `@opentelemetry/api` does not resolve (a file URL
 * import outside the workspace) sees `any` for its types.
 */
const HEADER_GETTER: TextMapGetter<HttpHeaders> = {
  keys: (headers: HttpHeaders): string[] =>
    Array.from(headers, ([name]) => name),
  get: (headers: HttpHeaders, key: string): string | undefined =>
    headers.get(key) ?? undefined,
};

/**
 * Traces the requests of the servers that have tracing on; one per process
 * (see {@linkcode tracingFor}).
 */
export class RequestTracing {
  #api: Api | undefined;
  #tracer: Tracer | undefined;
  /** Whether a propagator is registered; else `traceparent` is read here. */
  #propagates = false;
  #ready: Promise<void>;

  /** Starts importing the API. Use {@linkcode tracingFor}. */
  constructor() {
    this.#ready = loadApi().then((api) => {
      if (api === undefined) return;
      this.#tracer = api.trace.getTracer(TRACER_NAME, PACKAGE_VERSION);
      this.#propagates = api.propagation.fields().includes(TRACEPARENT);
      this.#api = api;
    });
  }

  /**
   * Runs the handler for one request inside its server span; what
   * `dispatch()` does when tracing is on. Requests that come before the
   * API is loaded wait for it (once per process, at start-up).
   *
   * @param server The server's shared context.
   * @param req The request.
   * @returns The response (never rejects).
   */
  dispatch(server: ServerContext, req: Request): Response | Promise<Response> {
    const api = this.#api;
    if (api === undefined) {
      return this.#ready.then(() =>
        this.#api === undefined
          ? untraced(server, req)
          : this.dispatch(server, req)
      );
    }
    const parent = this.#parentOf(api, req.headers);
    const span = this.#tracer!.startSpan(
      spanName(req.method, undefined),
      { kind: api.SpanKind.SERVER, attributes: requestAttributes(req) },
      parent,
    );
    const active = api.trace.setSpan(parent, span);
    if (!span.isRecording()) {
      // Not sampled by an SDK: the context still goes on to what the
      // handler calls, nothing else is recorded.
      setFailureReporter(req, server.onError);
      return api.context.with(active, callHandler, undefined, server, req);
    }
    const traced = new TracedRequest(api, span, req, server.onError);
    setFailureReporter(req, traced.report);
    exchangeOf(req).completed.then(traced.delivered, traced.failed);
    const result = api.context.with(
      active,
      callHandler,
      undefined,
      server,
      req,
    );
    return result instanceof Promise
      ? result.then(traced.respond)
      : traced.respond(result);
  }

  /**
   * The trace a request continues: what the registered propagator reads
   * from its fields, else its W3C `traceparent` and `tracestate`; a new
   * trace without them (never the context the server was started in).
   */
  #parentOf(api: Api, headers: HttpHeaders): Context {
    const root = api.ROOT_CONTEXT;
    if (this.#propagates) {
      return api.propagation.extract(root, headers, HEADER_GETTER);
    }
    const field = headers.get(TRACEPARENT);
    if (field === null) return root;
    const parent = parseTraceparent(field);
    if (parent === undefined) return root;
    const state = headers.get("tracestate");
    return api.trace.setSpanContext(root, {
      ...parent,
      isRemote: true,
      traceState: state === null ? undefined : api.createTraceState(state),
    });
  }
}

/** `dispatch()` without a span, when the API could not be loaded. */
function untraced(
  server: ServerContext,
  req: Request,
): Response | Promise<Response> {
  setFailureReporter(req, server.onError);
  return callHandler(server, req);
}

/** The span of one request, from its dispatch to the end of its exchange. */
class TracedRequest {
  #api: Api;
  #span: Span;
  #req: Request;
  #onError: FailureReporter;
  /** `error.type`: the first failure's class, or a 5xx status. */
  #errorType: string | undefined;
  #ended = false;

  constructor(api: Api, span: Span, req: Request, onError: FailureReporter) {
    this.#api = api;
    this.#span = span;
    this.#req = req;
    this.#onError = onError;
  }

  /**
   * The request's failure reporter: the exception goes on the span (its
   * class is `error.type`), then to the server's `onError`.
   */
  readonly report = (error: unknown, req: Request): void => {
    if (!this.#ended) {
      this.#errorType ??= errorType(error);
      this.#span.recordException(
        error instanceof Error ? error : String(error),
      );
    }
    this.#onError(error, req);
  };

  /** Records the response the handler and filters gave. */
  readonly respond = (res: Response): Response => {
    if (this.#ended) return res;
    const span = this.#span;
    const status = res.status;
    span.setAttribute("http.response.status_code", status);
    const route = this.#req.route;
    if (route !== undefined) {
      span.setAttribute("http.route", route);
      span.updateName(spanName(this.#req.method, route));
    }
    // HTTP semantic conventions, "Status": a server span is an error for
    // 5xx only; 4xx are the client's.
    if (status >= 500) {
      this.#errorType ??= String(status);
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
    }
    // An accepted WebSocket over HTTP/2 (RFC 8441) keeps its stream, so
    // its exchange lasts as long as the socket: the span ends with the
    // handshake, as an HTTP/1.1 upgrade's does once its 101 is written.
    if (status < 300 && isExtendedConnect(this.#req)) this.#end();
    return res;
  };

  /** The response was written completely. */
  readonly delivered = (): void => {
    if (this.#ended) return;
    this.#end();
  };

  /** The response could not be delivered (client gone, server stopped, body failed). */
  readonly failed = (error: unknown): void => {
    if (this.#ended) return;
    this.#errorType ??= errorType(error);
    this.#span.setStatus({
      code: this.#api.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    this.#end();
  };

  #end(): void {
    this.#ended = true;
    if (this.#errorType !== undefined) {
      this.#span.setAttribute("error.type", this.#errorType);
    }
    this.#span.end();
  }
}
