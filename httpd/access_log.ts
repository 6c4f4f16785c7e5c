/**
 * The access-log line formats; the filter itself is
 * {@linkcode Filter.accessLog}.
 *
 * @module
 */
import type { Request } from "./request.ts";
import { stdoutSink } from "./internal/filters/stdout_sink.ts";

/** Receives one access-log line, without a line break. */
export type AccessLogSink = (line: string) => void;

/**
 * Which reverse proxies to believe about the client address: how many stand
 * in front of the server, or the IP addresses and CIDR ranges they use.
 *
 * @example Two forms
 * ```ts
 * import type { TrustProxy } from "@org/httpd";
 *
 * const oneHop: TrustProxy = 1; // one load balancer in front
 * const ranges: TrustProxy = ["10.0.0.0/8", "::1"]; // the proxies' addresses
 * ```
 */
export type TrustProxy = number | readonly string[];

/**
 * The formats of {@linkcode formatAccessLogLine}:
 *
 * - `"default"`: the Common Log Format with the duration at the end.
 * - `"common"`: the NCSA Common Log Format, as Apache's `common` and
 *   nginx's default without the last two fields.
 * - `"combined"`: `common` plus the quoted `Referer` and `User-Agent`, as
 *   Apache's and nginx's `combined`.
 * - `"json"`: one JSON object per line, for log pipelines.
 */
export type AccessLogFormat = "default" | "common" | "combined" | "json";

/** Every {@linkcode AccessLogFormat}, for checking a user's choice. */
export const ACCESS_LOG_FORMATS: readonly AccessLogFormat[] = Object.freeze([
  "default",
  "common",
  "combined",
  "json",
]);

/** Options of {@linkcode Filter.accessLog}. */
export interface AccessLogOptions {
  /** The line format. Default `"default"`. */
  format?: AccessLogFormat;
  /**
   * Who made the request, for the user field. Called after the handler, so
   * a filter inside this one can record the user it authenticated (in
   * `req.attributes`, say). When it names nobody, as without it, the
   * `X-Forwarded-User` or `Gap-Auth` field an authenticating proxy sets
   * counts.
   */
  user?: (req: Request) => string | undefined;
  /** A monotonic clock in milliseconds for durations. Default `performance.now`. */
  now?: () => number;
  /** The wall clock in milliseconds since the epoch for the timestamp. Default `Date.now`. */
  wallClock?: () => number;
  /**
   * Which `X-Forwarded-For` hop is the client, since any client can send
   * the field. Without it (the default), the first hop, else `X-Real-IP`,
   * else the peer address: right behind a proxy that sets the fields,
   * spoofable without one. A number `n` says `n` proxies stand in front: the
   * address `n` hops left of the peer (`0` logs the peer and ignores the
   * fields). A list of IP addresses and CIDR ranges names the proxies: from
   * the peer leftwards, the first address not in the list. `X-Real-IP`
   * counts only when no `X-Forwarded-For` is present and the peer is a
   * trusted proxy.
   *
   * On a listener that takes the PROXY protocol (`proxyProtocol`), the
   * peer is the client the PROXY header names, not the load balancer: the
   * balancer is then not a hop to count or list, and the fields are judged
   * from that client (a count of 0 logs it and ignores them).
   */
  trustProxy?: TrustProxy;
  /**
   * Append the identifier `Filter.requestId` assigned (`-` when none) as a
   * last field of the text formats. Default `false`; `json` always has it.
   */
  requestId?: boolean;
}

/** The fields of one access-log line. */
export interface AccessLogEntry {
  /** The client address, or `undefined` when unknown. */
  clientIp: string | undefined;
  /** The authenticated user, or `undefined`. */
  user: string | undefined;
  /** When the request arrived, in milliseconds since the epoch. */
  time: number;
  /** The request method. */
  method: string;
  /** The request target as sent, such as `/a?b=1`. */
  target: string;
  /** The protocol, such as `HTTP/1.1`. */
  protocol: string;
  /** The final status. */
  status: number;
  /** The body length, or `undefined` for a stream of unknown length. */
  size: number | undefined;
  /** How long the handler took, in milliseconds. */
  durationMs: number;
  /** The `Referer` field, for `combined` and `json`. */
  referer?: string | undefined;
  /** The `User-Agent` field, for `combined` and `json`. */
  userAgent?: string | undefined;
  /**
   * The request identifier. The text formats print it as a last field
   * when present (`null` prints `-`); absent, the line has no such field.
   * `json` always has the key, `null` when unknown.
   */
  requestId?: string | null;
  /** Whether the request came over TLS, for `json`. */
  tls?: boolean | undefined;
}

const MONTHS = [
  "Jan",
  "Feb",
  "Mar",
  "Apr",
  "May",
  "Jun",
  "Jul",
  "Aug",
  "Sep",
  "Oct",
  "Nov",
  "Dec",
];
// Characters that would break the line: quote, backslash, C0 and C1 controls, DEL.
// deno-lint-ignore no-control-regex
const NEEDS_ESCAPE = /["\\\x00-\x1f\x7f-\x9f]/;
// deno-lint-ignore no-control-regex
const ESCAPE_ALL = /["\\\x00-\x1f\x7f-\x9f]/g;

let cachedSecond = -1;
let cachedStamp = "";

/**
 * Formats one access-log line. The `"default"` format is:
 *
 * `<client_ip> - <user> [dd/MMM/yyyy:HH:mm:ss +0000] "<method> <target> <protocol>" <status> <size> <duration>ms`
 *
 * `"common"` ends after `<size>`; `"combined"` adds `"<referer>" "<user agent>"`
 * after it. Each text format is followed by ` <request_id>` when the entry
 * has a `requestId`. Time is UTC. Unknown fields are `-`; `size` is `-` for
 * a stream of unknown length. The duration is written in milliseconds with
 * three decimals (microsecond resolution). In every field taken from the
 * request, `"` becomes `\"`, `\` becomes `\\` and control characters
 * become `\xHH`, so a hostile request cannot forge or break a line.
 *
 * `"json"` writes one object with the keys `time` (ISO 8601, UTC),
 * `client_ip`, `user`, `method`, `target`, `protocol`, `status`, `bytes`,
 * `duration_ms`, `referer`, `user_agent`, `request_id` and `tls`; unknown
 * values are `null`, and JSON escaping keeps every line one line.
 *
 * @param entry The fields.
 * @param format The format. Default `"default"`.
 * @returns The line, without a line break.
 *
 * @example Format a line
 * ```ts
 * import { formatAccessLogLine } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const line = formatAccessLogLine({
 *   clientIp: "203.0.113.7",
 *   user: undefined,
 *   time: Date.UTC(2026, 0, 2, 3, 4, 5),
 *   method: "GET",
 *   target: '/a"b',
 *   protocol: "HTTP/1.1",
 *   status: 200,
 *   size: 512,
 *   durationMs: 1.23456,
 * });
 * assert.equal(line, '203.0.113.7 - - [02/Jan/2026:03:04:05 +0000] "GET /a\\"b HTTP/1.1" 200 512 1.235ms');
 * ```
 */
export function formatAccessLogLine(
  entry: AccessLogEntry,
  format?: AccessLogFormat,
): string {
  if (format === undefined) format = "default";
  switch (format) {
    case "default":
      return `${commonLine(entry)} ${entry.durationMs.toFixed(3)}ms${
        idField(entry)
      }`;
    case "common":
      return commonLine(entry) + idField(entry);
    case "combined":
      return `${commonLine(entry)} "${quoted(entry.referer)}" "${
        quoted(entry.userAgent)
      }"${idField(entry)}`;
    case "json":
      return jsonLine(entry);
    default:
      throw new TypeError(
        `Cannot format an access-log line as "${format}": expected one of ${
          ACCESS_LOG_FORMATS.join(", ")
        }`,
      );
  }
}

function commonLine(entry: AccessLogEntry): string {
  const ip = entry.clientIp ? escapeField(entry.clientIp) : "-";
  const user = entry.user ? escapeField(entry.user) : "-";
  const size = entry.size === undefined ? "-" : String(entry.size);
  return `${ip} - ${user} [${timestamp(entry.time)}] "${
    escapeField(entry.method)
  } ${escapeField(entry.target)} ${
    escapeField(entry.protocol)
  }" ${entry.status} ${size}`;
}

/** The request id as a last field of a text line, when the entry has one. */
function idField(entry: AccessLogEntry): string {
  const id = entry.requestId;
  if (id === undefined) return "";
  // One field: a space would split it, so it is escaped like a control.
  return ` ${id ? escapeField(id).replaceAll(" ", "\\x20") : "-"}`;
}

function quoted(value: string | undefined): string {
  return value ? escapeField(value) : "-";
}

function jsonLine(entry: AccessLogEntry): string {
  return JSON.stringify({
    time: new Date(entry.time).toISOString(),
    client_ip: entry.clientIp || null,
    user: entry.user || null,
    method: entry.method,
    target: entry.target,
    protocol: entry.protocol,
    status: entry.status,
    bytes: entry.size ?? null,
    duration_ms: Math.round(entry.durationMs * 1000) / 1000,
    referer: entry.referer || null,
    user_agent: entry.userAgent || null,
    request_id: entry.requestId || null,
    tls: entry.tls ?? null,
  });
}

/**
 * The default sink of {@linkcode Filter.accessLog}: lines go to standard
 * output through one bounded buffer per process (1 MiB of pending lines),
 * written in batches and never awaited by requests. Use it to wrap the
 * default, for example to hold or filter lines.
 *
 * @returns The sink.
 *
 * @example Log only failed requests, to standard output
 * ```ts
 * import { Filter, Request, Response, stdoutAccessLogSink } from "@org/httpd";
 *
 * const stdout = stdoutAccessLogSink();
 * const errorsOnly = Filter.accessLog((line) => {
 *   if (/" [45]\d\d /.test(line)) stdout(line);
 * });
 * await errorsOnly.apply(() => Response.text("ok"))(new Request("/"));
 * ```
 */
export function stdoutAccessLogSink(): AccessLogSink {
  return STDOUT_SINK;
}

const STDOUT_SINK: AccessLogSink = (line) => stdoutSink().push(line);

/**
 * How many lines the default standard-output sink dropped because the
 * terminal could not keep up (its buffer holds 1 MiB of pending lines).
 *
 * @returns The count since the process started.
 *
 * @example Read the counter
 * ```ts
 * import { droppedAccessLogLines } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(typeof droppedAccessLogLines(), "number");
 * ```
 */
export function droppedAccessLogLines(): number {
  return stdoutSink().dropped;
}

function escapeField(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(ESCAPE_ALL, (c) => {
    if (c === '"') return '\\"';
    if (c === "\\") return "\\\\";
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
}

function timestamp(time: number): string {
  const second = Math.floor(time / 1000);
  if (second === cachedSecond) return cachedStamp;
  const d = new Date(second * 1000);
  cachedStamp = `${pad(d.getUTCDate())}/${
    MONTHS[d.getUTCMonth()]
  }/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${
    pad(d.getUTCSeconds())
  } +0000`;
  cachedSecond = second;
  return cachedStamp;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
