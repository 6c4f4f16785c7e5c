/**
 * A raw-socket HTTP/1.1 client for tests: sends exact bytes and parses the
 * responses, so tests can speak hostile or pipelined HTTP.
 *
 * @module
 */
import { concat } from "./bytes.ts";

/** One parsed response. */
export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

const decoder = new TextDecoder();

/**
 * Opens a connection to a loopback server.
 *
 * @param port The port.
 * @returns The connection.
 */
export function connect(port: number): Promise<Deno.TcpConn> {
  return Deno.connect({ hostname: "127.0.0.1", port });
}

/**
 * Reads until the peer closes or `timeoutMs` passes, returning all bytes.
 *
 * @param conn The connection (closed afterwards).
 * @param timeoutMs The longest wait.
 * @returns What was received, and whether the peer closed.
 */
export async function readAll(
  conn: Deno.Conn,
  timeoutMs = 2000,
): Promise<{ text: string; closed: boolean }> {
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(64 * 1024);
  let closed = false;
  const timer = setTimeout(() => {
    try {
      conn.close();
    } catch { /* closed */ }
  }, timeoutMs);
  try {
    while (true) {
      const n = await conn.read(buf);
      if (n === null) {
        closed = true;
        break;
      }
      chunks.push(buf.slice(0, n));
    }
  } catch {
    // Closed by the timer, or reset by the peer.
    closed = closed || false;
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed */ }
  }
  return { text: decoder.decode(concat(...chunks)), closed };
}

/**
 * Reads exactly `count` responses (for keep-alive tests), then returns.
 *
 * @param conn The connection (left open).
 * @param count How many responses.
 * @param options Whether each answers a HEAD request (no body).
 * @returns The responses.
 */
export async function readResponses(
  conn: Deno.Conn,
  count: number,
  options: { head?: boolean; timeoutMs?: number } = {},
): Promise<RawResponse[]> {
  let text = "";
  const buf = new Uint8Array(64 * 1024);
  const deadline = Date.now() + (options.timeoutMs ?? 3000);
  while (true) {
    const parsed = parseResponses(text, options.head ?? false);
    if (parsed.length >= count) return parsed.slice(0, count);
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${parsed.length} responses: ${JSON.stringify(text)}`,
      );
    }
    const n = await conn.read(buf);
    if (n === null) return parsed;
    text += decoder.decode(buf.subarray(0, n));
  }
}

/**
 * Parses as many complete responses as `text` holds.
 *
 * @param text Raw response bytes as text.
 * @param head Whether the requests were HEAD (no bodies).
 * @returns The complete responses.
 */
export function parseResponses(text: string, head = false): RawResponse[] {
  const out: RawResponse[] = [];
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf("\r\n\r\n", pos);
    if (end === -1) break;
    const lines = text.slice(pos, end).split("\r\n");
    const status = Number(lines[0]!.split(" ")[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(
        name,
        headers.has(name) ? `${headers.get(name)}, ${value}` : value,
      );
    }
    pos = end + 4;
    let body = "";
    if (head || status < 200 || status === 204 || status === 304) {
      // No body.
    } else if (headers.has("content-length")) {
      const length = Number(headers.get("content-length"));
      if (text.length - pos < length) break;
      body = text.slice(pos, pos + length);
      pos += length;
    } else if (headers.get("transfer-encoding") === "chunked") {
      let p = pos;
      let complete = false;
      while (true) {
        const lineEnd = text.indexOf("\r\n", p);
        if (lineEnd === -1) break;
        const size = parseInt(text.slice(p, lineEnd), 16);
        if (size === 0) {
          const tail = text.indexOf("\r\n\r\n", lineEnd);
          if (tail === -1) break;
          p = tail + 4;
          complete = true;
          break;
        }
        if (text.length < lineEnd + 2 + size + 2) break;
        body += text.slice(lineEnd + 2, lineEnd + 2 + size);
        p = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      pos = p;
    } else {
      body = text.slice(pos);
      pos = text.length;
    }
    out.push({ status, headers, body });
  }
  return out;
}

/**
 * Sends raw text and reads everything until the server closes.
 *
 * @param port The server's port.
 * @param raw The bytes to send, as text (Latin-1 escapes allowed).
 * @param timeoutMs The longest wait.
 * @returns The responses and whether the server closed the connection.
 */
export async function exchange(
  port: number,
  raw: string | Uint8Array,
  timeoutMs = 2000,
): Promise<{ responses: RawResponse[]; closed: boolean; text: string }> {
  const conn = await connect(port);
  const bytes = typeof raw === "string"
    ? Uint8Array.from(raw, (c) => c.charCodeAt(0))
    : raw;
  try {
    await conn.write(bytes);
  } catch {
    // The server may close before reading everything.
  }
  const { text, closed } = await readAll(conn, timeoutMs);
  return { responses: parseResponses(text), closed, text };
}

/**
 * Sends `GET path` on an open HTTP/1.1 connection and reads the answer.
 *
 * @param conn The connection (left open).
 * @param path The request target.
 * @returns The status and the body, as `"200 body"`.
 */
export async function getOn(conn: Deno.Conn, path: string): Promise<string> {
  await conn.write(
    new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`),
  );
  const [res] = await readResponses(conn, 1);
  return `${res!.status} ${res!.body}`;
}
