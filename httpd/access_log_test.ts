import assert from "node:assert/strict";
import { type AccessLogEntry, formatAccessLogLine } from "./access_log.ts";
import { Body } from "./body.ts";
import { HttpError } from "./errors.ts";
import { Filter } from "./filter.ts";
import type { Handler } from "./handler.ts";
import { Request, type RequestInit, setFailureReporter } from "./request.ts";
import { Response } from "./response.ts";

const BASE: AccessLogEntry = {
  clientIp: "198.51.100.4",
  user: undefined,
  time: Date.UTC(2026, 10, 22, 13, 5, 9, 750),
  method: "GET",
  target: "/index.html",
  protocol: "HTTP/1.1",
  status: 200,
  size: 1234,
  durationMs: 0.5,
};

Deno.test("formatAccessLogLine() writes the extended combined format in UTC", () => {
  assert.equal(
    formatAccessLogLine(BASE),
    '198.51.100.4 - - [22/Nov/2026:13:05:09 +0000] "GET /index.html HTTP/1.1" 200 1234 0.500ms',
  );
});

Deno.test("formatAccessLogLine() pads the date and writes every month", () => {
  const months = [
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
  for (let m = 0; m < 12; m++) {
    const line = formatAccessLogLine({
      ...BASE,
      time: Date.UTC(2025, m, 3, 4, 5, 6),
    });
    assert.ok(line.includes(`[03/${months[m]}/2025:04:05:06 +0000]`), line);
  }
});

Deno.test("formatAccessLogLine() writes - for unknown fields and streamed sizes", () => {
  const line = formatAccessLogLine({
    ...BASE,
    clientIp: undefined,
    user: "alice",
    size: undefined,
  });
  assert.ok(line.startsWith("- - alice ["), line);
  assert.ok(line.includes('" 200 - 0.500ms'), line);
});

Deno.test("formatAccessLogLine() rounds the duration to microseconds", () => {
  assert.ok(
    formatAccessLogLine({ ...BASE, durationMs: 12.34567 }).endsWith(
      " 12.346ms",
    ),
  );
  assert.ok(
    formatAccessLogLine({ ...BASE, durationMs: 0 }).endsWith(" 0.000ms"),
  );
});

Deno.test("formatAccessLogLine() escapes quotes, backslashes and control characters", () => {
  const cases: [Partial<AccessLogEntry>, string][] = [
    [{ target: '/a"b' }, '"GET /a\\"b HTTP/1.1"'],
    [{ target: "/a\\b" }, '"GET /a\\\\b HTTP/1.1"'],
    [{ target: "/a\nb\r\t" }, '"GET /a\\x0ab\\x0d\\x09 HTTP/1.1"'],
    [{ target: "/\x00\x1b\x7f\x85" }, '"GET /\\x00\\x1b\\x7f\\x85 HTTP/1.1"'],
    [{ method: 'G"ET' }, '"G\\"ET /index.html HTTP/1.1"'],
    [{ user: 'eve" 200' }, 'eve\\" 200 ['],
    [{ clientIp: "1.2.3.4\x1b[31m" }, "1.2.3.4\\x1b[31m - "],
    [{ target: "/café" }, '"GET /café HTTP/1.1"'],
  ];
  for (const [fields, expected] of cases) {
    const line = formatAccessLogLine({ ...BASE, ...fields });
    assert.ok(line.includes(expected), `${line} lacks ${expected}`);
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(line, /[\x00-\x1f\x7f]/);
  }
});

function logged(
  handler: Handler,
  target = "/p?q=1",
  init: RequestInit = {},
  onError?: (error: unknown) => void,
): { lines: string[]; run: () => Promise<Response> } {
  const lines: string[] = [];
  let clock = 100;
  const filter = Filter.accessLog((line) => lines.push(line), {
    now: () => (clock += 2.5),
    wallClock: () => BASE.time,
  });
  return {
    lines,
    run: async () => {
      const req = new Request(target, init);
      // What a server's dispatch does: failures go to its onError.
      if (onError) setFailureReporter(req, onError);
      return await filter.apply(handler)(req);
    },
  };
}

Deno.test("accessLog() writes one line with status, size and duration", async () => {
  const { lines, run } = logged(() => Response.text("hello"), "/p?q=1", {
    method: "POST",
    remoteAddress: "192.0.2.9",
    protocol: "HTTP/2",
  });
  await run();
  assert.deepEqual(lines, [
    '192.0.2.9 - - [22/Nov/2026:13:05:09 +0000] "POST /p?q=1 HTTP/2" 200 5 2.500ms',
  ]);
});

Deno.test("accessLog() resolves the client from X-Forwarded-For, X-Real-IP, then the peer", async () => {
  const cases: [Record<string, string>, string | undefined, string][] = [
    [
      { "x-forwarded-for": "203.0.113.1, 10.0.0.1", "x-real-ip": "10.9.9.9" },
      "10.0.0.2",
      "203.0.113.1",
    ],
    [{ "x-forwarded-for": " 2001:db8::1 " }, undefined, "2001:db8::1"],
    [
      { "x-forwarded-for": ", 10.0.0.1", "x-real-ip": "203.0.113.5" },
      "10.0.0.2",
      "203.0.113.5",
    ],
    [{ "x-real-ip": "203.0.113.5" }, "10.0.0.2", "203.0.113.5"],
    [{}, "10.0.0.2", "10.0.0.2"],
    [{}, undefined, "-"],
  ];
  for (const [headers, remoteAddress, expected] of cases) {
    const { lines, run } = logged(() => Response.text(""), "/", {
      headers,
      remoteAddress,
    });
    await run();
    assert.ok(lines[0]!.startsWith(`${expected} - `), lines[0]);
  }
});

Deno.test("accessLog() resolves the user from X-Forwarded-User, then Gap-Auth", async () => {
  const cases: [Record<string, string>, string][] = [
    [{ "x-forwarded-user": "alice", "gap-auth": "bob" }, "alice"],
    [{ "gap-auth": "bob" }, "bob"],
    [{ "x-forwarded-user": "", "gap-auth": "bob" }, "bob"],
    [{}, "-"],
  ];
  for (const [headers, expected] of cases) {
    const { lines, run } = logged(() => Response.text(""), "/", { headers });
    await run();
    assert.ok(lines[0]!.startsWith(`- - ${expected} [`), lines[0]);
  }
});

Deno.test("accessLog() writes - as the size of a stream of unknown length", async () => {
  const { lines, run } = logged(() =>
    new Response(Body.stream(ReadableStream.from([new Uint8Array(3)])))
  );
  const res = await run();
  await res.body.cancel();
  assert.ok(lines[0]!.endsWith(" 200 - 2.500ms"), lines[0]);
});

Deno.test("accessLog() logs the status of a thrown HttpError, which arrives as a response", async () => {
  const { lines, run } = logged(() => {
    throw new HttpError(403, "Forbidden");
  });
  const res = await run();
  assert.equal(res.status, 403);
  assert.ok(lines[0]!.endsWith(" 403 9 2.500ms"), lines[0]);
});

Deno.test("accessLog() logs 500 for any other exception, reported once", async () => {
  const failures: unknown[] = [];
  const { lines, run } = logged(
    () => Promise.reject(new RangeError("boom")),
    "/p",
    {},
    (error) => failures.push(error),
  );
  const res = await run();
  assert.equal(res.status, 500);
  assert.ok(lines[0]!.endsWith(" 500 21 2.500ms"), lines[0]);
  assert.equal(failures.length, 1);
  assert.ok(failures[0] instanceof RangeError);
});

Deno.test("accessLog() keeps answering when the sink throws", async () => {
  const filter = Filter.accessLog(() => {
    throw new Error("disk full");
  });
  const res = await filter.apply(() => Response.text("ok"))(new Request("/"));
  assert.equal(res.status, 200);
});

Deno.test("accessLog() as the outermost filter sees the final status", async () => {
  const lines: string[] = [];
  const handler = Filter.accessLog((l) => lines.push(l))
    .andThen((next) => async (req) => {
      const res = await next(req);
      res.status = 203;
      return res;
    })
    .apply(() => Response.text("ok"));
  await handler(new Request("/"));
  assert.match(lines[0]!, / 203 2 \d+\.\d{3}ms$/);
});

Deno.test("formatAccessLogLine() writes the common and combined formats", () => {
  const entry = {
    ...BASE,
    referer: "https://a.example/p",
    userAgent: 'Mozilla/5.0 "x"',
  };
  const common =
    '198.51.100.4 - - [22/Nov/2026:13:05:09 +0000] "GET /index.html HTTP/1.1" 200 1234';
  assert.equal(formatAccessLogLine(entry, "common"), common);
  assert.equal(
    formatAccessLogLine(entry, "combined"),
    `${common} "https://a.example/p" "Mozilla/5.0 \\"x\\""`,
  );
  assert.equal(
    formatAccessLogLine(BASE, "combined"),
    `${common} "-" "-"`,
  );
  const hostile = formatAccessLogLine(
    { ...BASE, userAgent: "a\nb\x1b[31m" },
    "combined",
  );
  assert.ok(hostile.endsWith(' "-" "a\\x0ab\\x1b[31m"'), hostile);
});

Deno.test("formatAccessLogLine() writes one JSON object with null for unknown values", () => {
  const line = formatAccessLogLine({
    ...BASE,
    durationMs: 1.23456,
    userAgent: "curl/8\n",
    requestId: "abc-1",
    tls: true,
  }, "json");
  assert.equal(line.includes("\n"), false);
  assert.deepEqual(JSON.parse(line), {
    time: "2026-11-22T13:05:09.750Z",
    client_ip: "198.51.100.4",
    user: null,
    method: "GET",
    target: "/index.html",
    protocol: "HTTP/1.1",
    status: 200,
    bytes: 1234,
    duration_ms: 1.235,
    referer: null,
    user_agent: "curl/8\n",
    request_id: "abc-1",
    tls: true,
  });
  assert.equal(
    JSON.parse(formatAccessLogLine({ ...BASE, size: undefined }, "json")).bytes,
    null,
  );
});

Deno.test("formatAccessLogLine() and accessLog() refuse an unknown format", () => {
  assert.throws(
    () => formatAccessLogLine(BASE, "apache" as "common"),
    TypeError,
  );
  assert.throws(
    () => Filter.accessLog(() => {}, { format: "apache" as "common" }),
    TypeError,
  );
});

Deno.test("accessLog() fills the combined and json fields from the request", async () => {
  const lines: string[] = [];
  const handler = Filter.accessLog((l) => lines.push(l), { format: "json" })
    .apply(() => Response.text("hey"));
  await handler(
    new Request("/x", {
      headers: { referer: "https://r.example/", "user-agent": "UA/1" },
      protocol: "HTTP/2",
      secure: true,
      remoteAddress: "192.0.2.3",
    }),
  );
  const entry = JSON.parse(lines[0]!);
  assert.equal(entry.referer, "https://r.example/");
  assert.equal(entry.user_agent, "UA/1");
  assert.equal(entry.protocol, "HTTP/2");
  assert.equal(entry.tls, true);
  assert.equal(entry.client_ip, "192.0.2.3");
  assert.equal(entry.bytes, 3);
});

Deno.test("accessLog() asks the user option who made the request, after the handler", async () => {
  const lines: string[] = [];
  const handler = Filter.accessLog((l) => lines.push(l), {
    user: (req) => req.attributes.get("user") as string | undefined,
  }).apply((req) => {
    req.attributes.set("user", "alice");
    return Response.text("");
  });
  await handler(new Request("/", { headers: { "x-forwarded-user": "eve" } }));
  assert.ok(lines[0]!.startsWith("- - alice ["), lines[0]);
});
