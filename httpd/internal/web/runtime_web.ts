/**
 * How `Deno.serve` itself builds the web `Request` it hands to a handler and
 * reads the `Response` it gets back, found in the runtime and checked before
 * use. Internal to the package; the one file that knows these details.
 *
 * The public ways cost more than the rest of an exchange: on Deno 2.9
 * `new Request(url, { headers })` takes about 5 µs (it parses the URL and
 * copies and validates every field), and a response body read through
 * `response.body` about 4 µs (a `ReadableStream`, a reader, two promises).
 * The runtime builds its own requests around a lazy record (the URL, the
 * fields and the body made on first use; about 70 ns) and keeps the body of
 * `new Response("text")` or `Response.json(value)` as the string itself
 * until something reads it. This module does what the runtime does, through
 * the same records:
 *
 * - a `Request` is made with the runtime's brand (`new Request(brand)`, the
 *   form `Deno.serve` uses) and given an inner record whose fields are
 *   getters over ours;
 * - a `Response`'s status, fields and in-memory body are read from its inner
 *   record, or from the slots where `new Response(string)` keeps them.
 *
 * Every detail is looked up by its symbol's description and then tried on
 * sample objects when the module loads ({@linkcode runtimeWeb} is `null`
 * when anything differs); `tests/web_runtime_test.ts` fails when a Deno
 * upgrade removes one, and the callers fall back to the public API, which
 * behaves the same, only slower.
 *
 * @module
 */

/** The `Symbol.description`s of the private slots this module uses. */
const SLOT = {
  /** The inner record of a `Request` or `Response`. */
  request: "request",
  response: "response",
  /** The guard a request's `Headers` get (`"immutable"` for served requests). */
  headersGuard: "headers guard",
  /** `new Response(string)` and `Response.json()` without init. */
  fastStatus: "serve fast status",
  fastBody: "serve fast body",
  fastHeaderKind: "serve fast header kind",
  fastContentType: "serve fast content type",
  fastConsumed: "serve fast consumed",
  /** The string of such a body until something materialises it. */
  lazyBody: "lazy static body",
  /** The prototype getter that materialises a response's inner body. */
  body: "body",
} as const;

/**
 * The value of the fast header-kind slot: which `Content-Type` the
 * runtime adds to a response kept in the fast slots.
 */
const HEADER_KIND_NONE = 0;
const HEADER_KIND_TEXT = 1;
const HEADER_KIND_TYPED = 2;
/** The type the runtime gives a string body (WHATWG Fetch, "extract a body"). */
const TEXT_TYPE = "text/plain;charset=UTF-8";

/** The runtime's `InnerBody`: a body as a stream or as in-memory content. */
export interface InnerBody {
  /** A stream, or the content not yet turned into one. */
  streamOrStatic:
    | ReadableStream<Uint8Array>
    | { body: string | Uint8Array; consumed: boolean };
  /** What the body was made from (a `Blob` for blobs and forms). */
  source: unknown;
  /** The length, when the source tells it. */
  length: number | null;
  /** Whether the body can no longer be read. */
  unusable(): boolean;
}

/** What {@linkcode RuntimeWeb.readResponse} found in a response. */
export interface ResponseParts {
  /** The status; 0 for `Response.error()`. */
  status: number;
  /** `"error"` for `Response.error()`. */
  type: string;
  /** The fields as `[name, value]` pairs, names as the application wrote them. */
  headerList: readonly (readonly [string, string])[];
  /**
   * The `Content-Type` the runtime keeps apart from `headerList`, to add
   * when the list has none.
   */
  contentType: string | undefined;
  /** The content: in memory, a stream, or none. */
  body: string | Uint8Array | ReadableStream<Uint8Array> | null;
  /** What a stream body was made from (a `Blob` for blobs and forms). */
  source: unknown;
  /** The length of a stream body, when its source tells it. */
  length: number | undefined;
  /** The body was read (or given) before. */
  consumed: boolean;
}

/**
 * Where {@linkcode RuntimeWeb.readFast} leaves the status and type of the
 * body it returns: one object, overwritten by each call (no allocation per
 * response).
 */
export interface FastParts {
  /** The status. */
  status: number;
  /** The `Content-Type` the runtime adds, if any. */
  contentType: string | undefined;
  /** The body was read (or sent) before. */
  consumed: boolean;
}

/** The runtime's own ways to make requests and read responses. */
export interface RuntimeWeb {
  /**
   * Makes a `Request` around an inner record, as `Deno.serve` does: the
   * record is read on demand (`method`, `url()`, `headerList`, `body`,
   * `onCancel`).
   */
  request(inner: object): globalThis.Request;
  /** The inner record of a request, as `request()` was given it. */
  innerOf(req: globalThis.Request): unknown;
  /** Wraps a stream as the runtime's `InnerBody`, for an inner request's `body`. */
  innerBody(stream: ReadableStream<Uint8Array>): InnerBody;
  /**
   * Reads the body of a response made as `new Response(string)` or
   * `Response.json(value)` without init, untouched since (the runtime keeps
   * those aside, with no fields but their type), marking it consumed; its
   * status and type go to `parts`.
   *
   * @returns The body, or `undefined` for any other response (then use
   * `readResponse`).
   */
  readFast(res: globalThis.Response, parts: FastParts): string | undefined;
  /**
   * Reads a response's status, fields and body, marking an in-memory body
   * consumed (as sending it does). Streams are returned unread.
   */
  readResponse(res: globalThis.Response): ResponseParts;
  /**
   * Sets the status of a response beyond what the constructor allows (101
   * for an accepted WebSocket, as `Deno.upgradeWebSocket` answers).
   */
  setStatus(res: globalThis.Response, status: number): void;
}

type Slots = Record<symbol, unknown>;

function ownSymbol(object: object, description: string): symbol | undefined {
  return Object.getOwnPropertySymbols(object).find((s) =>
    s.description === description
  );
}

function protoSymbol(proto: object, description: string): symbol | undefined {
  return Object.getOwnPropertySymbols(proto).find((s) =>
    s.description === description &&
    typeof Object.getOwnPropertyDescriptor(proto, s)?.get === "function"
  );
}

function find(): RuntimeWeb | null {
  const internalKey = (Deno as unknown as { internal?: symbol }).internal;
  if (typeof internalKey !== "symbol") return null;
  const brand = (Deno as unknown as Record<symbol, { webidlBrand?: unknown }>)[
    internalKey
  ]?.webidlBrand;
  if (typeof brand !== "symbol") return null;

  const sampleRequest = new globalThis.Request("http://localhost/", {
    method: "POST",
    body: "x",
  });
  const requestSlot = ownSymbol(sampleRequest, SLOT.request);
  const guardSlot = ownSymbol(sampleRequest, SLOT.headersGuard);
  if (requestSlot === undefined || guardSlot === undefined) return null;
  const innerBodyClass = ((sampleRequest as unknown as Slots)[requestSlot] as {
    body?: { constructor?: unknown };
  })?.body?.constructor;
  if (typeof innerBodyClass !== "function") return null;
  const InnerBodyClass = innerBodyClass as new (
    stream: ReadableStream<Uint8Array>,
  ) => InnerBody;

  const sampleResponse = new globalThis.Response("x");
  const slot = (description: string) => ownSymbol(sampleResponse, description);
  const responseSlot = slot(SLOT.response);
  const fastStatus = slot(SLOT.fastStatus);
  const fastBody = slot(SLOT.fastBody);
  const fastKind = slot(SLOT.fastHeaderKind);
  const fastType = slot(SLOT.fastContentType);
  const fastConsumed = slot(SLOT.fastConsumed);
  const lazyBody = slot(SLOT.lazyBody);
  const bodyGetter = protoSymbol(globalThis.Response.prototype, SLOT.body);
  if (
    responseSlot === undefined || fastStatus === undefined ||
    fastBody === undefined || fastKind === undefined ||
    fastType === undefined || fastConsumed === undefined ||
    lazyBody === undefined || bodyGetter === undefined
  ) {
    return null;
  }

  const runtime: RuntimeWeb = {
    request(inner) {
      const req = new (globalThis.Request as unknown as new (
        brand: symbol,
      ) => globalThis.Request)(brand as symbol);
      const slots = req as unknown as Slots;
      slots[requestSlot] = inner;
      slots[guardSlot] = "immutable";
      return req;
    },
    innerOf: (req) => (req as unknown as Slots)[requestSlot],
    innerBody: (stream) => new InnerBodyClass(stream),
    readFast(res, parts) {
      const slots = res as unknown as Slots;
      const status = slots[fastStatus];
      // Kept in the fast slots and never read: no inner fields or body
      // exist yet (reading it, or a clone, materialises them and clears
      // the lazy body). Only strings are kept there lazily.
      const body = slots[lazyBody];
      if (typeof status !== "number" || status <= 0 || body === null) {
        return undefined;
      }
      const kind = slots[fastKind];
      if (kind === HEADER_KIND_TEXT) parts.contentType = TEXT_TYPE;
      else if (kind === HEADER_KIND_TYPED) {
        parts.contentType = slots[fastType] as string;
      } else if (kind === HEADER_KIND_NONE) parts.contentType = undefined;
      else return undefined;
      if (typeof body !== "string") return undefined;
      parts.status = status;
      parts.consumed = slots[fastConsumed] === true;
      slots[fastConsumed] = true;
      return body;
    },
    readResponse(res) {
      const slots = res as unknown as Slots;
      const status = slots[fastStatus];
      const inner = slots[responseSlot] as {
        status: number;
        type: string;
        headerList: [string, string][];
      };
      const parts: ResponseParts = {
        status: inner.status,
        type: inner.type,
        headerList: inner.headerList,
        contentType: undefined,
        body: null,
        source: undefined,
        length: undefined,
        consumed: false,
      };
      if (typeof status === "number" && status > 0) {
        // Made through the runtime's fast constructor (as Hono's `c.json`
        // is): the status and the content type live in the fast slots, and
        // the inner field list holds the type only once the body was read
        // or cloned.
        parts.status = status;
        const kind = slots[fastKind];
        if (kind === HEADER_KIND_TEXT) parts.contentType = TEXT_TYPE;
        else if (kind === HEADER_KIND_TYPED) {
          parts.contentType = slots[fastType] as string;
        } else if (kind !== HEADER_KIND_NONE) {
          // A kind this module does not know: the public getter knows.
          parts.headerList = [...res.headers];
        }
      }
      // The getter materialises a lazily kept body into the inner record.
      const innerBody = slots[bodyGetter] as InnerBody | null;
      if (innerBody === null || innerBody === undefined) return parts;
      const content = innerBody.streamOrStatic;
      if (content instanceof ReadableStream) {
        parts.consumed = innerBody.unusable();
        parts.body = content;
        parts.source = innerBody.source;
        parts.length = innerBody.length ?? undefined;
      } else {
        parts.consumed = content.consumed;
        content.consumed = true;
        parts.body = content.body;
      }
      return parts;
    },
    setStatus(res, status) {
      (((res as unknown as Slots)[responseSlot]) as { status: number })
        .status = status;
    },
  };
  return works(runtime) ? runtime : null;
}

/** Tries each operation on sample objects; any difference disables them all. */
function works(runtime: RuntimeWeb): boolean {
  try {
    let cancelled = false;
    const inner = {
      methodInner: "POST",
      get method() {
        return this.methodInner;
      },
      url: () => "http://example.com/a?b",
      headerList: [["x-a", "1"]],
      body: runtime.innerBody(
        ReadableStream.from([new TextEncoder().encode("hi")]),
      ),
      onCancel(listener: () => void) {
        cancelled = true;
        listener();
      },
    };
    const req = runtime.request(inner);
    if (
      !(req instanceof globalThis.Request) || runtime.innerOf(req) !== inner ||
      req.method !== "POST" ||
      req.url !== "http://example.com/a?b" || req.headers.get("x-a") !== "1" ||
      req.bodyUsed || !req.signal.aborted || !cancelled
    ) {
      return false;
    }
    const textResponse = new globalThis.Response("hi");
    const text: FastParts = {
      status: 0,
      contentType: undefined,
      consumed: true,
    };
    const textBody = runtime.readFast(textResponse, text);
    const json: FastParts = { ...text };
    const jsonBody = runtime.readFast(globalThis.Response.json(1), json);
    const notFast = runtime.readFast(
      new globalThis.Response("hi", { status: 201 }),
      { ...text },
    );
    const withInit = new globalThis.Response("hi", {
      status: 201,
      headers: { "x-a": "1" },
    });
    const init = runtime.readResponse(withInit);
    const stream = runtime.readResponse(
      new globalThis.Response(new Blob(["abc"])),
    );
    const error = runtime.readResponse(globalThis.Response.error());
    const typed = runtime.readResponse(
      new globalThis.Response("{}", {
        status: 201,
        headers: { "content-type": "application/json" },
      }),
    );
    const read = new globalThis.Response("hi");
    void read.text();
    const readParts = runtime.readResponse(read);
    const cloned = new globalThis.Response("hi");
    cloned.clone();
    const clonedParts = runtime.readResponse(cloned);
    const upgraded = new globalThis.Response(null);
    runtime.setStatus(upgraded, 101);
    return text.status === 200 && textBody === "hi" &&
      text.contentType === TEXT_TYPE && !text.consumed &&
      textResponse.bodyUsed && notFast === undefined &&
      jsonBody === "1" && json.contentType === "application/json" &&
      init.status === 201 && init.body === "hi" && withInit.bodyUsed &&
      init.headerList.some(([n, v]) => n === "x-a" && v === "1") &&
      stream.body instanceof ReadableStream && stream.length === 3 &&
      stream.source instanceof Blob && error.type === "error" &&
      readParts.consumed && !clonedParts.consumed && typed.status === 201 &&
      typed.body === "{}" && !typed.consumed &&
      (typed.contentType === "application/json" ||
        typed.headerList.some(([n, v]) =>
          n.toLowerCase() === "content-type" && v === "application/json"
        )) &&
      clonedParts.body === "hi" &&
      (clonedParts.contentType === TEXT_TYPE ||
        clonedParts.headerList.some(([n, v]) =>
          n.toLowerCase() === "content-type" && v === TEXT_TYPE
        )) &&
      upgraded.status === 101;
  } catch {
    return false;
  }
}

const found = find();

/**
 * The runtime's own request and response operations, or `null` when this
 * runtime version lacks one of them (the callers then use the public API).
 */
export let runtimeWeb: RuntimeWeb | null = found;

/**
 * Whether this runtime offers what {@linkcode runtimeWeb} needs (whatever
 * {@linkcode useRuntimeWeb} chose since).
 */
export const RUNTIME_WEB_FOUND: boolean = found !== null;

/**
 * Turns the runtime's own operations off (the public API then serves every
 * request) or back on, so tests can run the web door both ways.
 *
 * @param enabled `false` for the public API.
 */
export function useRuntimeWeb(enabled: boolean): void {
  runtimeWeb = enabled ? found : null;
}
