/**
 * curl for tests: one request (or a redirect chain), its response heads and
 * body, and the fields and status of the last response.
 *
 * ```ts
 * import { Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 * import { curl, field, status } from "./curl.ts";
 * import { startServer } from "./server.ts";
 * import { hasCommand } from "./tools.ts";
 *
 * if (await hasCommand("curl")) {
 *   await using server = await startServer(() => Response.text("hi"));
 *   const got = await curl([server.url("/")]);
 *   assert.equal(status(got.head), 200);
 *   assert.equal(field(got.head, "content-type"), "text/plain; charset=utf-8");
 * }
 * ```
 *
 * @module
 */
import assert from "node:assert/strict";

/** What curl received. */
export interface CurlResult {
  /** Every response head, as curl's `-D` writes them. */
  head: string;
  /** The body, decoded when `--compressed` asked for it. */
  body: Uint8Array;
}

/**
 * Runs `curl -s --max-time 10 -D <file> ...args` and fails the test when
 * curl fails.
 *
 * @param args curl's arguments, the URL included.
 * @returns The heads and the body.
 */
export async function curl(args: string[]): Promise<CurlResult> {
  const headFile = await Deno.makeTempFile();
  try {
    const out = await new Deno.Command("curl", {
      args: ["-s", "--max-time", "10", "-D", headFile, ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return { head: await Deno.readTextFile(headFile), body: out.stdout };
  } finally {
    await Deno.remove(headFile);
  }
}

/** The last response's head (curl prints each response of a redirect chain). */
function lastHead(head: string): string {
  const blocks = head.trim().split(/\r\n\r\n/);
  return blocks[blocks.length - 1]!;
}

/**
 * Reads a field of the last response.
 *
 * @param head What {@linkcode curl} returned as `head`.
 * @param name The field name, in any case.
 * @returns The value, or `undefined`.
 */
export function field(head: string, name: string): string | undefined {
  const re = new RegExp(`^${name}:\\s*(.*)$`, "im");
  return re.exec(lastHead(head))?.[1]?.trim();
}

/**
 * Reads the status of the last response.
 *
 * @param head What {@linkcode curl} returned as `head`.
 * @returns The status code.
 */
export function status(head: string): number {
  return Number(/^HTTP\/[\d.]+ (\d{3})/.exec(lastHead(head))![1]);
}
