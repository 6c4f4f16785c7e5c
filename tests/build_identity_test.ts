/**
 * A fresh clone running `deno task serve` names its real commit in the
 * `Server` and `X-Service-Build` headers, with no build step before.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { firstLine } from "./support/output_line.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

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

const HAVE_GIT = await run(ROOT, "--version") !== null;
if (!HAVE_GIT) {
  console.log("build_identity_test: skipped, git is not installed");
}

/**
 * Makes a fresh clone of this repository in `dir`: a real `git clone` of the
 * checkout, or, when the tests run from an export without `.git`, a new
 * repository holding the exported files.
 */
async function freshClone(dir: string): Promise<void> {
  const head = await run(ROOT, "rev-parse", "HEAD");
  if (head !== null) {
    assert.notEqual(
      await run(ROOT, "clone", "-q", "--no-checkout", ROOT, dir),
      null,
    );
    assert.notEqual(await run(dir, "checkout", "-q", head), null);
    return;
  }
  const source = await Deno.makeTempDir({ prefix: "httpd-export-" });
  try {
    await Deno.remove(source);
    await new Deno.Command("cp", { args: ["-R", ROOT, source] }).output();
    for (
      const args of [
        ["init", "-q"],
        ["add", "-A"],
        [
          "-c",
          "user.name=t",
          "-c",
          "user.email=t@example.com",
          "commit",
          "-q",
          "-m",
          "export",
        ],
      ]
    ) {
      assert.notEqual(await run(source, ...args), null, args.join(" "));
    }
    assert.notEqual(await run(ROOT, "clone", "-q", source, dir), null);
  } finally {
    await Deno.remove(source, { recursive: true });
  }
}

Deno.test({
  name:
    "deno task serve in a fresh clone sends the clone's commit in Server and X-Service-Build",
  ignore: !HAVE_GIT,
  async fn() {
    const clone = await Deno.makeTempDir({ prefix: "httpd-clone-" });
    try {
      await Deno.remove(clone);
      await freshClone(clone);
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
      await Deno.remove(clone, { recursive: true }).catch(() => {});
    }
  },
});
