/**
 * `deno task build-info`: writes `httpd/build_info.json` with the package
 * version, the short git commit and the build time, read by `BuildInfo`.
 *
 * @module
 */
const root = new URL("..", import.meta.url);
const config = JSON.parse(
  await Deno.readTextFile(new URL("httpd/deno.json", root)),
);
let gitCommit = "unknown";
try {
  const out = await new Deno.Command("git", {
    args: ["rev-parse", "--short", "HEAD"],
    cwd: root,
    stdout: "piped",
    stderr: "null",
  }).output();
  if (out.success) gitCommit = new TextDecoder().decode(out.stdout).trim();
} catch {
  // git is not installed: keep "unknown".
}
const info = {
  version: config.version,
  gitCommit,
  buildTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
};
const target = new URL("httpd/build_info.json", root);
await Deno.writeTextFile(target, JSON.stringify(info, null, 2) + "\n");
console.log(`Wrote ${target.pathname}: ${JSON.stringify(info)}`);
