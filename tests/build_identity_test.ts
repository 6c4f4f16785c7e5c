/**
 * A fresh clone running `deno task serve` names its real commit in the
 * `Server` and `X-Service-Build` headers, with no build step before.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** How long a cold launcher may take to print its URL on a busy machine. */
const START_TIMEOUT_MS = 30_000;

async function run(cwd: string, ...args: string[]): Promise<string | null> {
  try {
    const out = await new Deno.Command("git", {
      args,
      cwd,
      stdout: "piped",
      stderr: "null",
    }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
  } catch {
    return null; // No git.
  }
}

const HEAD = await run(ROOT, "rev-parse", "HEAD");
if (HEAD === null) {
  console.log(
    "build_identity_test: skipped, the repository is not a git checkout (an export)",
  );
}

/** Reads lines from a stream until one matches; rejects after the timeout. */
async function firstLine(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => reader.cancel(), START_TIMEOUT_MS);
  let text = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`No line matching ${pattern} in:\n${text}`);
      text += value;
      const line = text.split("\n").find((l) => pattern.test(l));
      if (line !== undefined) return line;
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

Deno.test({
  name:
    "deno task serve in a fresh clone sends the clone's commit in Server and X-Service-Build",
  ignore: HEAD === null,
  async fn() {
    const clone = await Deno.makeTempDir({ prefix: "httpd-clone-" });
    try {
      assert.notEqual(
        await run(ROOT, "clone", "-q", "--no-checkout", ROOT, clone),
        null,
      );
      assert.notEqual(await run(clone, "checkout", "-q", HEAD!), null);
      const short = await run(clone, "rev-parse", "--short", "HEAD");
      const child = new Deno.Command(Deno.execPath(), {
        args: ["task", "serve", "--port", "0", "--bind", "127.0.0.1"],
        cwd: clone,
        env: { NO_COLOR: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      try {
        const line = await firstLine(child.stdout, /^Listening on http:/);
        const url = line.replace(/^Listening on /, "");
        const res = await fetch(url, { method: "HEAD" });
        await res.body?.cancel();
        assert.equal(res.status, 200);
        const header = res.headers.get("x-service-build") ?? "";
        assert.match(
          header,
          new RegExp(
            `^httpd/\\d+\\.\\d+\\.\\d+\\+${short} \\(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z\\)$`,
          ),
        );
        assert.equal(res.headers.get("server"), header);
      } finally {
        child.kill("SIGTERM");
        await child.status;
      }
    } finally {
      await Deno.remove(clone, { recursive: true });
    }
  },
});
