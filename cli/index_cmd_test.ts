import assert from "node:assert/strict";
import { runIndex } from "./index_cmd.ts";

async function run(
  args: string[],
): Promise<{ status: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runIndex(args, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
  });
  return { status, out, err };
}

Deno.test("runIndex() writes the index and the requested sidecars", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/a.css`, "p { margin: 0 }\n".repeat(100));
  const first = await run([dir, "--compress", "gzip,br", "--threshold", "100"]);
  assert.equal(first.status, 0);
  assert.match(
    first.out[0]!,
    /Indexed 1 files .* 2 sidecars written, 0 removed, static-index.json written/,
  );
  assert.ok((await Deno.stat(`${dir}/a.css.gz`)).isFile);
  assert.ok((await Deno.stat(`${dir}/a.css.br`)).isFile);
  const again = await run([dir, "--compress=gzip,br"]);
  assert.match(
    again.out[0]!,
    /0 hashed, 0 sidecars written, 0 removed, static-index.json unchanged/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("runIndex() exits 2 with one line naming the bad flag", async () => {
  const cases: [string[], RegExp][] = [
    [["d", "--level", "9"], /"--level"/],
    [["d", "--compress"], /--compress/],
    [["d", "--compress", "lzma"], /--compress.*"lzma"/],
    [["d", "--threshold", "-5"], /--threshold/],
    [["d", "--threshold", "1k"], /--threshold.*"1k"/],
    [["d", "--help=yes"], /--help/],
    [[], /no directory/],
    [["a", "b"], /"b"/],
  ];
  for (const [args, pattern] of cases) {
    const got = await run(args);
    assert.equal(got.status, 2, args.join(" "));
    assert.equal(got.err.length, 1);
    assert.match(got.err[0]!, /^httpd-cli: /);
    assert.match(got.err[0]!, pattern, args.join(" "));
  }
});

Deno.test("runIndex() prints help and exits 1 for a missing directory", async () => {
  const help = await run(["--help"]);
  assert.equal(help.status, 0);
  assert.match(help.out[0]!, /^Usage: httpd-cli index DIR/);
  const missing = await run(["/nonexistent/dir/for/index"]);
  assert.equal(missing.status, 1);
  assert.match(missing.err[0]!, /Cannot index/);
});
