/**
 * The access-log filter: times the request, resolves the client and user
 * fields, and hands one formatted line to the sink.
 *
 * @module
 */
import {
  ACCESS_LOG_FORMATS,
  type AccessLogEntry,
  type AccessLogOptions,
  type AccessLogSink,
  formatAccessLogLine,
  stdoutAccessLogSink,
} from "../../access_log.ts";
import type { Handler } from "../../handler.ts";
import { clientAddressResolver } from "../client_address.ts";
import type { Request } from "../../request.ts";
import type { Response } from "../../response.ts";
import { requestIdOf } from "../../request_id.ts";

/**
 * Creates the access-log filter function.
 *
 * @param sink Where lines go; default standard output, buffered.
 * @param options The trusted proxies, and clocks for tests.
 * @returns The filter function.
 */
export function accessLogFilter(
  sink?: AccessLogSink,
  options?: AccessLogOptions,
): (next: Handler) => Handler {
  const write: AccessLogSink = sink ?? stdoutAccessLogSink();
  const now = options?.now ?? (() => performance.now());
  const wallClock = options?.wallClock ?? Date.now;
  const clientIp = clientAddressResolver(options?.trustProxy);
  const format = options?.format ?? "default";
  if (!ACCESS_LOG_FORMATS.includes(format)) {
    throw new TypeError(
      `Cannot create access log: format "${format}" is not one of ${
        ACCESS_LOG_FORMATS.join(", ")
      }`,
    );
  }
  const named = options?.user;
  const userOf = named === undefined
    ? forwardedUser
    : (req: Request) => named(req) ?? forwardedUser(req);
  // Only the formats that print them read these fields.
  const agent = format === "combined" || format === "json";
  const json = format === "json";
  const withRequestId = json || (options?.requestId ?? false);
  return (next) => async (req: Request): Promise<Response> => {
    const time = wallClock();
    const start = now();
    let status = 500;
    let size: number | undefined;
    try {
      // Errors thrown inside arrive as responses (see Filter): this is the
      // status the client gets.
      const res = await next(req);
      status = res.status;
      size = res.body.contentLength;
      return res;
    } finally {
      const durationMs = now() - start;
      try {
        const entry: AccessLogEntry = {
          clientIp: clientIp({
            remoteAddress: req.remoteAddress,
            forwardedFor: req.header("x-forwarded-for"),
            realIp: req.header("x-real-ip"),
          }),
          user: userOf(req),
          time,
          method: req.method,
          target: req.target,
          protocol: req.protocol,
          status,
          size,
          durationMs,
          referer: agent ? req.header("referer") : undefined,
          userAgent: agent ? req.header("user-agent") : undefined,
          tls: json ? req.secure : undefined,
        };
        if (withRequestId) entry.requestId = requestIdOf(req) ?? null;
        write(formatAccessLogLine(entry, format));
      } catch {
        // A failing sink never fails the request.
      }
    }
  };
}

/** The user an authenticating proxy names. */
function forwardedUser(req: Request): string | undefined {
  return req.header("x-forwarded-user") || req.header("gap-auth") || undefined;
}
