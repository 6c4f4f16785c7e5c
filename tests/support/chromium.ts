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
