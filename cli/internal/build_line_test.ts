import assert from "node:assert/strict";
import { BuildInfo } from "@org/httpd";
import { buildLine } from "./build_line.ts";

const FIELDS = {
  version: "0.2.0",
  gitCommit: "abc1234",
  buildTimestamp: "2026-08-30T10:00:00Z",
};

Deno.test("buildLine() names the build, and where its facts came from when the library says", () => {
  assert.equal(
    buildLine(new BuildInfo(FIELDS)),
    "Build httpd/0.2.0+abc1234 (2026-08-30T10:00:00Z)",
  );
  const fromGit = Object.assign(new BuildInfo(FIELDS), {
    source: "git-checkout",
  });
  assert.equal(
    buildLine(fromGit),
    "Build httpd/0.2.0+abc1234 (2026-08-30T10:00:00Z) from the git checkout",
  );
});
