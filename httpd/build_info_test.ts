import assert from "node:assert/strict";
import { BuildInfo, PACKAGE_VERSION } from "./build_info.ts";

Deno.test("BuildInfo.load() reads version, commit and time from a build-info file", async () => {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        version: "1.2.3",
        gitCommit: "abc1234",
        buildTimestamp: "2026-11-22T10:00:00Z",
      }),
    );
    const info = BuildInfo.load(path);
    assert.equal(info.version, "1.2.3");
    assert.equal(info.gitCommit, "abc1234");
    assert.equal(info.runtimeVersion, Deno.version.deno);
    assert.equal(
      info.serverHeader,
      "httpd/1.2.3+abc1234 (2026-11-22T10:00:00Z)",
    );
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("BuildInfo.load() falls back field by field, never inventing values", async () => {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(
      path,
      JSON.stringify({ gitCommit: "", buildTimestamp: 42 }),
    );
    const partial = BuildInfo.load(path);
    assert.equal(partial.version, PACKAGE_VERSION);
    assert.equal(partial.gitCommit, "unknown");
    assert.equal(partial.buildTimestamp, "unknown");
    await Deno.writeTextFile(path, "{not json");
    assert.equal(
      BuildInfo.load(path).serverHeader,
      `httpd/${PACKAGE_VERSION}+unknown (unknown)`,
    );
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("deno task build-info writes a file BuildInfo reads", async () => {
  const root = new URL("../", import.meta.url);
  const target = new URL("httpd/build_info.json", root);
  let existed = true;
  try {
    await Deno.stat(target);
  } catch {
    existed = false;
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tools/build_info.ts"],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output();
  try {
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const info = BuildInfo.load(target);
    assert.match(info.buildTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.notEqual(info.version, "");
  } finally {
    if (!existed) await Deno.remove(target);
  }
});
