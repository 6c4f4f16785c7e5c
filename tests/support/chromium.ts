/**
 * Headless Chromium for tests about what browsers do: load a page and read
 * its DOM after scripts ran, or take a screenshot. Each run gets its own
 * profile directory and a bounded time.
 *
 * @module
 */
import { findBinary } from "./prometheus_server.ts";

/** The browser, or `undefined` when it is not installed (tests skip). */
export const CHROMIUM: string | undefined = findBinary("chromium") ??
  findBinary("chromium-browser") ?? findBinary("google-chrome");

/** How long one page may take, with the browser's start. */
const RUN_TIMEOUT_MS = 60_000;

/** Options of {@linkcode dumpDom} and {@linkcode screenshot}. */
export interface BrowserOptions {
  /** How long scripts may run before the DOM is read, in milliseconds. */
  budgetMs?: number;
  /** The window size, such as `1024,768`. */
  windowSize?: string;
}

async function run(args: string[]): Promise<string> {
  const profile = await Deno.makeTempDir({ prefix: "chromium_profile_" });
  const child = new Deno.Command(CHROMIUM!, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
      ...args,
    ],
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
    const { stdout } = await child.output();
    return new TextDecoder().decode(stdout);
  } finally {
    clearTimeout(timer);
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

/**
 * Loads a page and returns its DOM, serialized after scripts ran.
 *
 * @param url The page.
 * @param options How long scripts may run.
 * @returns The HTML of the DOM.
 */
export function dumpDom(
  url: string,
  options: BrowserOptions = {},
): Promise<string> {
  return run([
    `--virtual-time-budget=${options.budgetMs ?? 5_000}`,
    "--dump-dom",
    url,
  ]);
}

/**
 * Loads a page and writes a PNG screenshot of it.
 *
 * @param url The page.
 * @param file Where to write the PNG.
 * @param options The window size.
 */
export async function screenshot(
  url: string,
  file: string,
  options: BrowserOptions = {},
): Promise<void> {
  await run([
    `--window-size=${options.windowSize ?? "1024,640"}`,
    "--hide-scrollbars",
    `--screenshot=${file}`,
    url,
  ]);
}
