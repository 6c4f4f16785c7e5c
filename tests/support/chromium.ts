/**
 * Headless Chromium for tests: loads a page, lets its scripts and fetches
 * run, and returns the DOM as the page left it, or a screenshot of it.
 * Each run gets a fresh profile and a bounded time.
 *
 * ```ts
 * import { Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 * import { dumpDom, hasChromium } from "./chromium.ts";
 * import { startServer } from "./server.ts";
 *
 * if (await hasChromium()) {
 *   await using server = await startServer(() =>
 *     Response.html("<p id=a></p><script>a.textContent = 1 + 1</script>")
 *   );
 *   assert.match(await dumpDom(server.url("/")), /<p id="a">2<\/p>/);
 * }
 * ```
 *
 * @module
 */
import { hasCommand } from "./tools.ts";

/** The flags of a sandbox-less, quiet headless run (see the helpers' guide). */
export const HEADLESS_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** How long one run may take, the browser's start included. */
const RUN_TIMEOUT_MS = 60_000;

/**
 * Tells whether `chromium` can run here.
 *
 * @returns `true` when `chromium --version` succeeds.
 */
export function hasChromium(): Promise<boolean> {
  return hasCommand("chromium");
}

async function run(args: string[]): Promise<string> {
  const profile = await Deno.makeTempDir({ prefix: "test_chromium_" });
  const child = new Deno.Command("chromium", {
    args: [...HEADLESS_FLAGS, `--user-data-dir=${profile}`, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  }, RUN_TIMEOUT_MS);
  try {
    const out = await child.output();
    return new TextDecoder().decode(out.stdout);
  } finally {
    clearTimeout(timer);
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

/**
 * Loads a URL in a fresh headless profile and returns the serialized DOM.
 *
 * @param url The page.
 * @param options More command-line flags, such as
 * `--ignore-certificate-errors` for a test certificate.
 * @returns The DOM, as HTML.
 */
export function dumpDom(
  url: string,
  options: { flags?: string[] } = {},
): Promise<string> {
  // The budget lets the page's timers and fetches finish before the DOM
  // is printed.
  return run([
    ...(options.flags ?? []),
    "--virtual-time-budget=10000",
    "--dump-dom",
    url,
  ]);
}

/**
 * Loads a URL in a fresh headless profile and writes a PNG screenshot.
 *
 * @param url The page.
 * @param file Where the PNG goes.
 * @param windowSize The viewport, such as `1024,640`.
 */
export async function screenshot(
  url: string,
  file: string,
  windowSize = "1024,640",
): Promise<void> {
  await run([
    `--window-size=${windowSize}`,
    "--hide-scrollbars",
    `--screenshot=${file}`,
    url,
  ]);
}

/**
 * Opens a page in headless Chromium and evaluates `expression` in it every
 * 100 ms (through the DevTools protocol) until `done` accepts the value or
 * `timeoutMs` passes, for pages whose work (a WebSocket, server-sent
 * events) does not run under `--dump-dom`'s virtual time.
 *
 * @param url The page.
 * @param expression JavaScript evaluated in the page; its value must be
 * JSON-serialisable.
 * @param options `done` (default: any value but `undefined`), more
 * command-line flags, the time limit (default 20 s).
 * @returns The last value (which `done` accepted, unless time ran out).
 */
export async function evaluateInPage(
  url: string,
  expression: string,
  options: {
    done?: (value: unknown) => boolean;
    flags?: string[];
    timeoutMs?: number;
  } = {},
): Promise<unknown> {
  const done = options.done ?? ((value) => value !== undefined);
  const profile = await Deno.makeTempDir({ prefix: "test_chromium_" });
  const child = new Deno.Command("chromium", {
    args: [
      ...HEADLESS_FLAGS,
      `--user-data-dir=${profile}`,
      "--remote-debugging-port=0",
      ...(options.flags ?? []),
      "about:blank",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let socket: WebSocket | undefined;
  try {
    // Chromium prints where its DevTools endpoint listens.
    const reader = child.stderr.pipeThrough(new TextDecoderStream())
      .getReader();
    let text = "";
    while (!/DevTools listening on ws:\/\/[^/]+\//.test(text)) {
      const { value, done: ended } = await readBefore(reader, deadline);
      if (ended) throw new Error(`chromium exited: ${text}`);
      text += value;
    }
    void (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done) {
        // Drained, so the pipe never fills.
      }
    })();
    const host = text.match(/DevTools listening on ws:\/\/([^/]+)\//)![1]!;
    const target = await (await fetch(
      `http://${host}/json/new?${encodeURI(url)}`,
      { method: "PUT" },
    )).json() as { webSocketDebuggerUrl: string };
    socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket!.onopen = resolve;
      socket!.onerror = () => reject(new Error("no DevTools connection"));
    });
    let id = 0;
    const waiting = new Map<number, (result: unknown) => void>();
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data));
      waiting.get(message.id)?.(message.result);
      waiting.delete(message.id);
    };
    const evaluate = () =>
      new Promise<unknown>((resolve) => {
        waiting.set(++id, resolve);
        socket!.send(JSON.stringify({
          id,
          method: "Runtime.evaluate",
          params: { expression, returnByValue: true },
        }));
      });
    let value: unknown;
    while (Date.now() < deadline) {
      const result = await evaluate() as { result?: { value?: unknown } };
      value = result?.result?.value;
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return value;
  } finally {
    socket?.close();
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await child.status;
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

/** A read that gives up at `deadline`. */
async function readBefore(
  reader: ReadableStreamDefaultReader<string>,
  deadline: number,
): Promise<ReadableStreamReadResult<string>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("chromium did not start")),
          Math.max(0, deadline - Date.now()),
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
