/**
 * Small helpers for the `serve()` end-to-end tests: bounded waits, and a
 * raw socket client that keeps reading in the background so a test can wait
 * for exact bytes (or for the peer to close) with a deadline.
 *
 * ```ts
 * import { serve } from "@org/httpd";
 * import { RawClient } from "./serve_client.ts";
 *
 * const server = serve(
 *   { port: 0, hostname: "127.0.0.1", onListen() {} },
 *   () => new Response("hi"),
 * );
 * const client = await RawClient.connect((server.addr as Deno.NetAddr).port);
 * await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
 * await client.until((text) => text.endsWith("hi"));
 * await client.close();
 * await server.shutdown();
 * ```
 *
 * @module
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Waits for a promise, failing after `ms` milliseconds.
 *
 * @param promise What to wait for.
 * @param ms The longest wait.
 * @param what What is awaited, for the error message.
 * @returns The promise's value.
 * @throws {Error} When the time runs out.
 */
export function within<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Timed out after ${ms} ms: ${what}`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Whether a promise settles (either way) within `ms` milliseconds.
 *
 * @param promise The promise.
 * @param ms The wait.
 * @returns `true` when it settled in time.
 */
export async function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(() => true, () => true),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sleeps.
 *
 * @param ms Milliseconds.
 * @returns A promise that resolves after them.
 */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Bytes as a string of one character per byte. */
function binaryString(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
}

/** Decodes a string of one character per byte as UTF-8. */
function utf8(binary: string): string {
  return decoder.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** A parsed HTTP/1.1 response head. */
export interface Head {
  /** The status code. */
  status: number;
  /** The fields, names lower-cased, repeated ones joined with `", "`. */
  fields: Map<string, string>;
  /** The offset of the body in the text (after the blank line). */
  bodyStart: number;
}

/**
 * Parses the first response head in `text`.
 *
 * @param text Received bytes as text.
 * @param from Where the head starts.
 * @returns The head, or `undefined` when it is not complete yet.
 */
export function parseHead(text: string, from = 0): Head | undefined {
  const end = text.indexOf("\r\n\r\n", from);
  if (end === -1) return undefined;
  const lines = text.slice(from, end).split("\r\n");
  const status = Number(lines[0]!.split(" ")[1]);
  const fields = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    fields.set(
      name,
      fields.has(name) ? `${fields.get(name)}, ${value}` : value,
    );
  }
  return { status, fields, bodyStart: end + 4 };
}

/**
 * Decodes a complete chunked body.
 *
 * @param text The body's bytes as text, from the first chunk size line.
 * @returns The content and where the message ends, or `undefined` when the
 * last chunk has not arrived.
 */
export function dechunk(
  text: string,
): { body: string; end: number } | undefined {
  let body = "";
  let p = 0;
  while (true) {
    const lineEnd = text.indexOf("\r\n", p);
    if (lineEnd === -1) return undefined;
    const size = parseInt(text.slice(p, lineEnd), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) {
      const tail = text.indexOf("\r\n\r\n", lineEnd);
      return tail === -1 ? undefined : { body, end: tail + 4 };
    }
    if (text.length < lineEnd + 2 + size + 2) return undefined;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    p = lineEnd + 2 + size + 2;
  }
}

/**
 * A raw connection that reads in the background: {@linkcode RawClient.until}
 * waits, with a deadline, for the received text to satisfy a test.
 */
export class RawClient {
  /** The connection. */
  readonly conn: Deno.Conn;
  /** Everything received so far (UTF-8 decoded). */
  text = "";
  /**
   * Everything received so far, one character per byte: offsets in it are
   * byte offsets, which {@linkcode RawClient.response} works with.
   */
  binary = "";
  /** Whether the peer closed (or reset) the connection. */
  closed = false;
  #chunks: Uint8Array[] = [];
  #waiters = new Set<() => void>();
  #pump: Promise<void>;

  private constructor(conn: Deno.Conn) {
    this.conn = conn;
    this.#pump = this.#run();
  }

  /**
   * Connects to a loopback TCP port.
   *
   * @param port The port.
   * @returns The client.
   */
  static async connect(port: number): Promise<RawClient> {
    return new RawClient(
      await Deno.connect({ hostname: "127.0.0.1", port }),
    );
  }

  /**
   * Connects to a Unix socket.
   *
   * @param path The socket's path.
   * @returns The client.
   */
  static async connectUnix(path: string): Promise<RawClient> {
    return new RawClient(await Deno.connect({ transport: "unix", path }));
  }

  async #run(): Promise<void> {
    const buf = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await this.conn.read(buf);
        if (n === null) break;
        this.#chunks.push(buf.slice(0, n));
        this.binary += binaryString(buf.subarray(0, n));
        this.text += decoder.decode(buf.subarray(0, n), { stream: true });
        this.#notify();
      }
    } catch {
      // Reset by the peer, or closed by us.
    }
    this.closed = true;
    this.#notify();
  }

  /**
   * Everything received so far, as bytes (for binary data, which
   * {@linkcode RawClient.text} cannot show).
   *
   * @returns The bytes.
   */
  bytes(): Uint8Array {
    const out = new Uint8Array(
      this.#chunks.reduce((n, c) => n + c.length, 0),
    );
    let at = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  #notify(): void {
    for (const waiter of this.#waiters) waiter();
  }

  /**
   * Sends text (or bytes).
   *
   * @param data What to send.
   */
  async send(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    let written = 0;
    while (written < bytes.length) {
      written += await this.conn.write(bytes.subarray(written));
    }
  }

  /**
   * Waits until the received text satisfies `test`.
   *
   * @param test Called with the text received so far.
   * @param ms The longest wait.
   * @param what What is awaited, for the error message.
   * @returns The text.
   * @throws {Error} On timeout, or when the peer closed first.
   */
  async until(
    test: (text: string) => boolean,
    ms = 2000,
    what = "the expected bytes",
  ): Promise<string> {
    if (test(this.text)) return this.text;
    const { promise, resolve, reject } = Promise.withResolvers<string>();
    const check = () => {
      if (test(this.text)) resolve(this.text);
      else if (this.closed) {
        reject(
          new Error(
            `The peer closed before ${what}; got ${JSON.stringify(this.text)}`,
          ),
        );
      }
    };
    this.#waiters.add(check);
    try {
      check();
      return await within(
        promise,
        ms,
        `${what}; got ${JSON.stringify(this.text)}`,
      );
    } finally {
      this.#waiters.delete(check);
    }
  }

  /**
   * Waits until the peer closes the connection.
   *
   * @param ms The longest wait.
   * @returns Everything received.
   */
  async untilClosed(ms = 2000): Promise<string> {
    if (this.closed) return this.text;
    const { promise, resolve } = Promise.withResolvers<string>();
    const check = () => {
      if (this.closed) resolve(this.text);
    };
    this.#waiters.add(check);
    try {
      return await within(
        promise,
        ms,
        `the peer to close; got ${JSON.stringify(this.text)}`,
      );
    } finally {
      this.#waiters.delete(check);
    }
  }

  /**
   * Waits for one complete response from byte offset `from`: a head and its
   * body (by `Content-Length`, chunked, or none for `head`/1xx/204/304).
   *
   * @param from Where the response starts, in bytes received.
   * @param options `head` for a HEAD request's response; the wait.
   * @returns The head, the body (UTF-8 decoded), and the byte offset where
   * the response ends.
   */
  async response(
    from = 0,
    options: { head?: boolean; ms?: number } = {},
  ): Promise<Head & { body: string; end: number }> {
    let result: (Head & { body: string; end: number }) | undefined;
    const done = (head: Head, body: string, end: number) => {
      result = { ...head, body: utf8(body), end };
      return true;
    };
    await this.until(
      () => {
        const text = this.binary;
        const head = parseHead(text, from);
        if (head === undefined) return false;
        const { status, fields, bodyStart } = head;
        if (
          options.head || status < 200 || status === 204 || status === 304
        ) {
          return done(head, "", bodyStart);
        }
        const length = fields.get("content-length");
        if (length !== undefined) {
          const end = bodyStart + Number(length);
          if (text.length < end) return false;
          return done(head, text.slice(bodyStart, end), end);
        }
        if (fields.get("transfer-encoding")?.toLowerCase() === "chunked") {
          const chunked = dechunk(text.slice(bodyStart));
          if (chunked === undefined) return false;
          return done(head, chunked.body, bodyStart + chunked.end);
        }
        // Delimited by the close.
        if (!this.closed) return false;
        return done(head, text.slice(bodyStart), text.length);
      },
      options.ms ?? 2000,
      "a complete response",
    );
    return result!;
  }

  /** Closes the connection and waits for the background reader to stop. */
  async close(): Promise<void> {
    try {
      this.conn.close();
    } catch {
      // Already closed.
    }
    await this.#pump;
  }
}
