/**
 * What a git checkout says about the code running from it: the build facts
 * of a clone that has no build-info file.
 *
 * @module
 */

/** The commit facts of a checkout. */
export interface GitFacts {
  /** The short commit, with `-dirty` when tracked files differ from it. */
  gitCommit: string;
  /** The commit's time, ISO-8601 UTC without fractions. */
  buildTimestamp: string;
}

/**
 * The commit and commit time of the git checkout that holds `dir`, asked of
 * `git` itself (it knows packed refs, worktrees and dirty files). Returns
 * `undefined` outside a checkout, without git, or without permission to run
 * it: the permission is queried first so a library user is never prompted.
 *
 * @param dir A `file:` URL of a directory.
 * @returns The short commit (`-dirty` when the work tree differs) and the
 * commit's UTC time, or `undefined`.
 */
export function gitCheckoutFacts(
  dir: URL,
): GitFacts | undefined {
  if (dir.protocol !== "file:") return undefined;
  try {
    const run = Deno.permissions.querySync({ name: "run", command: "git" });
    if (run.state !== "granted") return undefined;
    const cwd = decodeURIComponent(dir.pathname);
    const log = git(cwd, [
      "log",
      "-1",
      "--format=%h%n%cd",
      "--date=format-local:%Y-%m-%dT%H:%M:%SZ",
    ]);
    const [commit, time] = log?.split("\n") ?? [];
    if (!commit || !time) return undefined;
    // `git diff --quiet` exits 1 when tracked files differ from HEAD.
    const dirty = git(cwd, ["diff", "--quiet", "HEAD"]) === undefined;
    return {
      gitCommit: dirty ? `${commit}-dirty` : commit,
      buildTimestamp: time,
    };
  } catch {
    return undefined; // No git, or not a checkout.
  }
}

/** Runs git; its trimmed output, or `undefined` when it failed. */
function git(cwd: string, args: string[]): string | undefined {
  const out = new Deno.Command("git", {
    args,
    cwd,
    env: { TZ: "UTC" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
}
