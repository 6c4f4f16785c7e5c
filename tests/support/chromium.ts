/**
 * Headless Chromium for tests: loads a page, lets its scripts and fetches
 * run, and returns the DOM as the page left it.
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
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Lets the page's timers and fetches finish before the DOM is printed.
  "--virtual-time-budget=10000",
  "--dump-dom",
];

/**
 * Tells whether `chromium` can run here.
 *
 * @returns `true` when `chromium --version` succeeds.
 */
export function hasChromium(): Promise<boolean> {
  return hasCommand("chromium");
}

/**
 * Loads a URL in a fresh headless profile and returns the serialized DOM.
 *
 * @param url The page.
 * @param options More command-line flags, such as
 * `--ignore-certificate-errors` for a test certificate, and the longest
 * run (default 60 s; the browser is killed then, and the DOM is empty).
 * @returns The DOM, as HTML.
 */
export async function dumpDom(
  url: string,
  options: { flags?: string[]; timeoutMs?: number } = {},
): Promise<string> {
  const profile = await Deno.makeTempDir({ prefix: "test_chromium_" });
  try {
    const out = await new Deno.Command("chromium", {
      args: [
        ...FLAGS,
        ...(options.flags ?? []),
        `--user-data-dir=${profile}`,
        url,
      ],
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    }).output();
    return new TextDecoder().decode(out.stdout);
  } finally {
    await Deno.remove(profile, { recursive: true });
  }
}
