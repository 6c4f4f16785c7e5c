/**
 * `deno task release --dry-run` writes the build-info file and the publish
 * dry run lists it: a published `@org/httpd` names its build.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BUILD_INFO = `${ROOT}httpd/build_info.json`;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("deno task release --dry-run publishes httpd/build_info.json with the version of httpd/deno.json", async () => {
  const existed = await exists(BUILD_INFO);
  const before = existed ? await Deno.readTextFile(BUILD_INFO) : undefined;
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "release", "--dry-run", "--allow-dirty"],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) +
      new TextDecoder().decode(out.stderr);
    assert.ok(out.success, text);
    assert.match(text, /httpd\/build_info\.json/);
    const info = JSON.parse(await Deno.readTextFile(BUILD_INFO));
    const config = JSON.parse(
      await Deno.readTextFile(`${ROOT}httpd/deno.json`),
    );
    assert.equal(info.version, config.version);
    assert.match(info.buildTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  } finally {
    if (before !== undefined) await Deno.writeTextFile(BUILD_INFO, before);
    else await Deno.remove(BUILD_INFO).catch(() => {});
  }
});
