/**
 * Converts the web `Response` a fetch handler returns into ours, the form
 * the protocol drivers send. Internal to the package.
 *
 * @module
 */
import { Body } from "../../body.ts";
import { HttpHeaders, sharedHeaders } from "../../headers.ts";
import { Response } from "../../response.ts";
import {
  type FastParts,
  type ResponseParts,
  runtimeWeb,
} from "./runtime_web.ts";

/** Filled by `readFast`, read at once: one object for every response. */
const fast: FastParts = { status: 0, contentType: undefined, consumed: false };
/** The init of a response read from the fast slots, refilled for each. */
const fastInit: { status: number; headers: HttpHeaders | undefined } = {
  status: 0,
  headers: undefined,
};
/** The one field such a response has. */
const CONTENT_TYPE = ["content-type"];
/**
 * One values array per content type (a handful: the runtime's text type,
 * `application/json`, a form's), shared by every response of that type:
 * the map copies it before a change.
 */
const TYPE_VALUES = new Map<string, string[]>();
/** Types remembered at most: an application with more pays two arrays. */
const MAX_TYPE_VALUES = 16;

function typeValues(type: string): string[] {
  let values = TYPE_VALUES.get(type);
  if (values === undefined) {
    values = [type];
    if (TYPE_VALUES.size < MAX_TYPE_VALUES) TYPE_VALUES.set(type, values);
  }
  return values;
}

/**
 * A `Blob` body (a `Blob`, a `FormData`) up to this size is read whole and
 * sent with its head in one write; a larger one streams, with its length.
 */
const READ_BLOB_LIMIT = 64 * 1024;

/** Web responses that accept a WebSocket, and ours that carry the socket. */
const upgrades = new WeakMap<globalThis.Response, Response>();

/**
 * Records that a web response accepts a WebSocket: sending it sends ours,
 * which carries the pending socket, with the fields of the web one.
 *
 * @param web The response `upgradeWebSocket` returns to a fetch handler.
 * @param ours The response that opens the socket.
 */
export function registerUpgrade(
  web: globalThis.Response,
  ours: Response,
): void {
  upgrades.set(web, ours);
}

/** Why a fetch handler's return value cannot be sent; the client gets a 500. */
export class InvalidResponseError extends TypeError {
  /**
   * Creates the error.
   *
   * @param message What was wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "TypeError";
  }
}

/**
 * Converts what a fetch handler returned. A body whose length is known (a
 * string, bytes, `Response.json`, `URLSearchParams`, and a `Blob` or
 * `FormData` read here) becomes an in-memory body, sent with
 * `Content-Length` and its head in one write; a stream stays a stream,
 * with the length `Content-Length` or its source gives, and its failure is
 * reported through `report`.
 *
 * @param web What the handler returned.
 * @param report Receives an error of the body stream, with `req`.
 * @param req The request, for `report`.
 * @returns Our response, or a promise of it for a `Blob` body (read whole).
 * @throws {InvalidResponseError} For anything but a `Response`, for
 * `Response.error()`, and for a response whose body was already read (as
 * `Deno.serve` refuses them).
 */
export function fromWebResponse<R>(
  web: unknown,
  report?: (error: unknown, req: R) => void,
  req?: R,
): Response | Promise<Response>;
export function fromWebResponse(
  web: unknown,
  report?: (error: unknown, req: unknown) => void,
  req?: unknown,
): Response | Promise<Response> {
  if (!(web instanceof globalThis.Response)) {
    if (web instanceof Response) {
      throw new InvalidResponseError(
        "Cannot send response: the fetch handler returned @org/httpd's " +
          "Response; a fetch handler (serve(), fetchHandler()) returns the " +
          "global Response, so do not import Response from @org/httpd there " +
          "(or mount the function as a native Handler instead)",
      );
    }
    throw new InvalidResponseError(
      `Cannot send response: the handler returned ${describe(web)}, ` +
        "not a Response or a promise resolving to a Response",
    );
  }
  const runtime = runtimeWeb;
  if (runtime !== null) {
    // `new Response("text")`, `Response.json(value)`: the common answers.
    const text = runtime.readFast(web, fast);
    if (text !== undefined) {
      if (fast.consumed) throw consumedError();
      const type = fast.contentType;
      fastInit.status = fast.status;
      fastInit.headers = type === undefined
        ? new HttpHeaders()
        : sharedHeaders(CONTENT_TYPE, typeValues(type));
      return new Response(Body.of(text), fastInit);
    }
  }
  const upgrade = upgrades.get(web);
  if (upgrade !== undefined) return upgradeResponse(web, upgrade);
  const parts = runtime === null ? publicParts(web) : runtime.readResponse(web);
  if (parts.type === "error") {
    throw new InvalidResponseError(
      "Cannot send response: the handler returned an error response " +
        "(like Response.error())",
    );
  }
  if (parts.consumed) throw consumedError();
  const list = parts.headerList;
  const names: string[] = new Array(list.length);
  const values: string[] = new Array(list.length);
  let length: number | undefined;
  let typed = false;
  for (let i = 0; i < list.length; i++) {
    const name = list[i]![0].toLowerCase();
    names[i] = name;
    values[i] = list[i]![1];
    if (name === "content-length") length = declaredLength(list[i]![1]);
    else if (name === "content-type") typed = true;
  }
  if (parts.contentType !== undefined && !typed) {
    names.push("content-type");
    values.push(parts.contentType);
  }
  const headers = HttpHeaders.fromTrusted(names, values);
  const body = parts.body;
  if (body === null) {
    return new Response(Body.empty(), { status: parts.status, headers });
  }
  if (!(body instanceof ReadableStream)) {
    return new Response(Body.of(body), { status: parts.status, headers });
  }
  length ??= parts.length;
  const source = parts.source;
  if (
    source instanceof Blob && length !== undefined &&
    length <= READ_BLOB_LIMIT
  ) {
    // Read whole: one write with the head, as for a string.
    void body.cancel().catch(() => {});
    return source.bytes().then((bytes) =>
      new Response(Body.of(bytes), { status: parts.status, headers })
    );
  }
  if (runtimeWeb === null && length === undefined) {
    // The public API hides in-memory bodies behind a stream too.
    return readAhead(body).then(([head, rest]) =>
      new Response(
        rest === undefined
          ? Body.of(head)
          : Body.stream(reporting(rest, report, req), undefined),
        { status: parts.status, headers },
      )
    );
  }
  return new Response(Body.stream(reporting(body, report, req), length), {
    status: parts.status,
    headers,
  });
}

/**
 * Without the runtime's view of a body, tells an in-memory one (whose
 * stream has all its content at once) from a real stream: reads the first
 * chunk, and the end if it comes in the same turn. A stream whose next
 * chunk is not there at once (server-sent events) is not waited for: it
 * goes on with what was read put back in front.
 *
 * @returns The whole content and `undefined`, or the first bytes and the
 * stream to send.
 */
async function readAhead(
  stream: ReadableStream<Uint8Array>,
): Promise<[Uint8Array, ReadableStream<Uint8Array> | undefined]> {
  const reader = stream.getReader();
  const first = await reader.read();
  if (first.done) return [new Uint8Array(0), undefined];
  const next = reader.read();
  const soon = await Promise.race([
    next,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined))),
  ]);
  if (soon?.done === true) return [first.value, undefined];
  const pending: Promise<ReadableStreamReadResult<Uint8Array>>[] = [
    Promise.resolve(first),
    next,
  ];
  return [
    first.value,
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        const result = await (pending.shift() ?? reader.read());
        if (result.done) controller.close();
        else controller.enqueue(result.value);
      },
      cancel: (reason) => reader.cancel(reason),
    }, { highWaterMark: 0 }),
  ];
}

function consumedError(): InvalidResponseError {
  return new InvalidResponseError(
    "Cannot send response: its body has already been consumed " +
      "(a Response can be sent once)",
  );
}

/** The status and fields of a web response, read the public way. */
function publicParts(web: globalThis.Response): ResponseParts {
  const headerList: [string, string][] = [];
  web.headers.forEach((value, name) => {
    if (name !== "set-cookie") headerList.push([name, value]);
  });
  for (const cookie of web.headers.getSetCookie()) {
    headerList.push(["set-cookie", cookie]);
  }
  return {
    status: web.status,
    type: web.type,
    headerList,
    contentType: undefined,
    consumed: web.bodyUsed,
    body: web.body,
    source: undefined,
    length: undefined,
  };
}

/** A `Content-Length` value, when it is one (RFC 9110 section 8.6). */
function declaredLength(value: string): number | undefined {
  return /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/**
 * The response that opens an accepted WebSocket, with the fields the
 * application (or its middleware) set on the web one.
 */
function upgradeResponse(web: globalThis.Response, ours: Response): Response {
  upgrades.delete(web);
  web.headers.forEach((value, name) => {
    if (!ours.headers.has(name)) ours.headers.set(name, value);
  });
  return ours;
}

/**
 * Reads a response stream for the driver: a chunk that is not a
 * `Uint8Array`, or a stream that errors, is reported (the client sees the
 * response cut short) and ends the body; cancelling it (the client went
 * away) cancels the source.
 */
function reporting(
  stream: ReadableStream<Uint8Array>,
  report: ((error: unknown, req: unknown) => void) | undefined,
  req: unknown,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        report?.(error, req);
        throw error;
      }
      if (result.done) return controller.close();
      const chunk = result.value as unknown;
      if (!(chunk instanceof Uint8Array)) {
        const error = new InvalidResponseError(
          `Cannot send response body: a chunk is ${describe(chunk)}, ` +
            "not a Uint8Array",
        );
        report?.(error, req);
        void reader.cancel(error).catch(() => {});
        throw error;
      }
      controller.enqueue(chunk);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") {
    return `an object (${value.constructor?.name ?? "no prototype"})`;
  }
  return typeof value;
}
