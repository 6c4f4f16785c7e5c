import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { gitCheckoutFacts } from "./git_facts.ts";

const HAVE_GIT = await new Deno.Command("git", { args: ["--version"] })
  .output().then((o) => o.success, () => false);

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
      GIT_COMMITTER_DATE: "2026-01-02T03:04:05+01:00",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

function dirUrl(path: string): URL {
  return new URL(`${pathToFileURL(path).href}/`);
}

Deno.test({
  name:
    "gitCheckoutFacts() reads the short commit, its UTC time and a dirty tree",
  ignore: !HAVE_GIT,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      await git(dir, "init", "-q");
      await Deno.writeTextFile(`${dir}/a.txt`, "one");
      await git(dir, "add", "a.txt");
      await git(dir, "commit", "-q", "-m", "first");
      const short = await git(dir, "rev-parse", "--short", "HEAD");
      await Deno.mkdir(`${dir}/sub`);
      const facts = gitCheckoutFacts(dirUrl(`${dir}/sub`));
      assert.deepEqual(facts, {
        gitCommit: short,
        buildTimestamp: "2026-01-02T02:04:05Z",
      });
      await Deno.writeTextFile(`${dir}/a.txt`, "two");
      assert.equal(gitCheckoutFacts(dirUrl(dir))?.gitCommit, `${short}-dirty`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "gitCheckoutFacts() answers undefined outside a checkout and for remote URLs",
  ignore: !HAVE_GIT,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      assert.equal(gitCheckoutFacts(dirUrl(dir)), undefined);
      assert.equal(
        gitCheckoutFacts(new URL("https://example.com/httpd/")),
        undefined,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

if (!HAVE_GIT) console.log("git_facts_test: skipped, git is not installed");
