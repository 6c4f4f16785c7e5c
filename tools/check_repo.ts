/**
 * Repository rules that no linter checks, run by `deno task test`:
 *
 * - **One version per package.** Each member's `deno.json` holds its
 *   version; `PACKAGE_VERSION` in `httpd/build_info.ts` and the README's
 *   package table must agree with it.
 * - **No import cycles** between modules (value imports; `import type` is
 *   erased and may go both ways).
 * - **Members resolve alone.** Every bare specifier a member's published code
 *   imports is declared in that member's `deno.json` `imports`, and every
 *   declared import is used, so the published dependency list is exactly what
 *   the code needs. The lockfile holds nothing else (benchmark-only packages
 *   live in `bench/deno.json` and its own lockfile).
 * - **Published text speaks to users**: no internal jargon ("seed", issue
 *   numbers) in published files or the README.
 * - **Costly Node built-ins load on use.** `@org/httpd` imports `node:zlib`,
 *   `node:crypto`, `node:net`, `node:tls`, `node:stream` and `node:buffer`
 *   only for types, or through `httpd/internal/node_builtins.ts`: importing
 *   them loads about 3 MiB of Deno's Node compatibility layer into every
 *   server, compressing or not.
 *
 * And one rule that only warns: **hubs stay small.** A published source file
 * over {@linkcode LARGE_FILE_LINES} lines gets a warning line (not a
 * failure), so that a protocol hub that grows back is seen when it happens.
 *
 * Prints one line per problem and exits 1 when there is any.
 *
 * @module
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_VERSION } from "../httpd/build_info.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface MemberConfig {
  name: string;
  version: string;
  exports: Record<string, string>;
  imports?: Record<string, string>;
  publish?: { exclude?: string[] };
}

interface Member {
  dir: string;
  config: MemberConfig;
}

const problems: string[] = [];
const problem = (line: string): number => problems.push(line);
const warnings: string[] = [];

/**
 * Lines past which a published source file is reported: the anchors' p90
 * (std 349, Hono 319); above it a file usually holds more than one job.
 */
const LARGE_FILE_LINES = 400;

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(join(ROOT, path))) as T;
}

const workspace = await readJson<{ workspace: string[] }>("deno.json");
const members: Member[] = [];
for (const dir of workspace.workspace) {
  members.push({
    dir: dir.replace(/^\.\//, ""),
    config: await readJson<MemberConfig>(join(dir, "deno.json")),
  });
}

/** The member's published source files (tests and test data are excluded). */
async function publishedFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (path: string): Promise<void> => {
    for await (const entry of Deno.readDir(join(ROOT, path))) {
      const child = join(path, entry.name);
      if (entry.isDirectory) {
        if (entry.name !== "testdata") await walk(child);
      } else if (!entry.name.endsWith("_test.ts")) {
        files.push(child);
      }
    }
  };
  await walk(dir);
  return files.sort();
}

// --- versions --------------------------------------------------------------

const httpd = members.find((m) => m.config.name === "@org/httpd");
if (httpd && httpd.config.version !== PACKAGE_VERSION) {
  problem(
    `httpd/build_info.ts: PACKAGE_VERSION is ${PACKAGE_VERSION} but httpd/deno.json says ${httpd.config.version}`,
  );
}
const readme = await Deno.readTextFile(join(ROOT, "README.md"));
for (const { config } of members) {
  const row = readme.match(
    new RegExp(`\`${config.name.replace("/", "\\/")}\` (\\d+\\.\\d+\\.\\d+)`),
  );
  if (row && row[1] !== config.version) {
    problem(
      `README.md: ${config.name} is listed as ${
        row[1]
      } but its deno.json says ${config.version}`,
    );
  }
}

// --- import graph ------------------------------------------------------------

interface InfoDependency {
  specifier: string;
  code?: { specifier: string };
}
interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

const entrypoints = members.flatMap(({ dir, config }) =>
  Object.values(config.exports).map((target) => join(dir, target))
);
const edges = new Map<string, string[]>();
for (const entrypoint of entrypoints) {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entrypoint],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!info.success) {
    problem(`${entrypoint}: deno info failed, cannot read the module graph`);
    continue;
  }
  const graph = JSON.parse(new TextDecoder().decode(info.stdout)) as {
    modules: InfoModule[];
  };
  for (const module of graph.modules) {
    if (!module.specifier.startsWith("file:")) continue;
    edges.set(
      module.specifier,
      (module.dependencies ?? []).flatMap((d) =>
        d.code?.specifier.startsWith("file:") ? [d.code.specifier] : []
      ),
    );
  }
}
for (const cycle of findCycles(edges)) {
  const names = cycle.map((s) => relative(ROOT, fileURLToPath(s)));
  problem(`import cycle: ${[...names, names[0]].join(" -> ")}`);
}

/** One cycle per strongly connected component larger than a module (Tarjan). */
function findCycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfLoop = (edges.get(node) ?? []).includes(node);
    if (component.length > 1 || selfLoop) cycles.push(component.reverse());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

// --- imports each member declares ------------------------------------------

/** Bare specifiers in import/export statements and dynamic imports. */
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g;

function packageOf(specifier: string): string | undefined {
  if (/^(\.|\/|node:|npm:|jsr:|https?:|file:|data:)/.test(specifier)) {
    return undefined;
  }
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const lockedPackages = new Set<string>();
for (const { dir, config } of members) {
  const declared = new Map(Object.entries(config.imports ?? {}));
  const used = new Set<string>();
  for (const file of await publishedFiles(dir)) {
    if (!file.endsWith(".ts")) continue;
    // Examples in doc comments import the package itself: skip comments.
    const code = (await Deno.readTextFile(join(ROOT, file)))
      .replace(/\/\*[\s\S]*?\*\//g, "");
    for (const match of code.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? "";
      const name = packageOf(specifier);
      if (name === undefined || name === config.name) continue;
      used.add(name);
      if (!declared.has(name)) {
        problem(
          `${file}: imports "${specifier}" but ${dir}/deno.json does not declare "${name}" in its imports`,
        );
      }
    }
  }
  for (const [name, target] of declared) {
    if (!used.has(name)) {
      problem(
        `${dir}/deno.json: imports "${name}" but no published file uses it`,
      );
    }
    if (target.startsWith("npm:")) lockedPackages.add(target);
  }
}
try {
  const lock = await readJson<{ specifiers?: Record<string, string> }>(
    "deno.lock",
  );
  for (const specifier of Object.keys(lock.specifiers ?? {})) {
    if (specifier.startsWith("npm:") && !lockedPackages.has(specifier)) {
      problem(
        `deno.lock: "${specifier}" is no member's import; every run would download it (benchmark packages belong in bench/deno.json)`,
      );
    }
  }
} catch {
  // No lockfile yet: nothing to compare.
}

// --- Node built-ins loaded on use ---------------------------------------------

/** A value import (not `import type`) of a costly Node built-in. */
const COSTLY_NODE_IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(?!type\b)[^'";]*?from\s*["']node:(zlib|crypto|net|tls|stream|buffer)["']|(?:^|\n)\s*import\s*["']node:(zlib|crypto|net|tls|stream|buffer)["']/g;
if (httpd !== undefined) {
  for (const file of await publishedFiles(httpd.dir)) {
    if (!file.endsWith(".ts")) continue;
    const code = (await Deno.readTextFile(join(ROOT, file)))
      .replace(/\/\*[\s\S]*?\*\//g, "");
    for (const match of code.matchAll(COSTLY_NODE_IMPORT)) {
      problem(
        `${file}: imports node:${
          match[1] ?? match[2]
        } when loaded; use httpd/internal/node_builtins.ts so servers that do not need it do not load it`,
      );
    }
  }
}

// --- words for users ---------------------------------------------------------

/** Internal jargon that must not reach users. */
const JARGON = [
  { pattern: /\bseed(?:'s|s)?\b/i, what: 'the word "seed"' },
  {
    pattern: /\b(?:issue|ticket) #?\d+\b|(?<![\w&])#\d{1,3}\b(?![\w-])/i,
    what: "an issue number",
  },
];
const userFacing = [
  "README.md",
  ...(await Promise.all(members.map((m) => publishedFiles(m.dir)))).flat(),
];
for (const file of userFacing) {
  if (!/\.(ts|md|txt|html)$/.test(file)) continue;
  const lines = (await Deno.readTextFile(join(ROOT, file))).split("\n");
  lines.forEach((line, i) => {
    for (const { pattern, what } of JARGON) {
      if (pattern.test(line)) {
        problem(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 100)}`);
      }
    }
  });
}

// --- file sizes (warnings) ---------------------------------------------------

for (const { dir } of members) {
  for (const file of await publishedFiles(dir)) {
    if (!file.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(join(ROOT, file));
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > LARGE_FILE_LINES) {
      warnings.push(
        `warning: ${file}: ${lines} lines (over ${LARGE_FILE_LINES}): split it by job`,
      );
    }
  }
}
for (const line of warnings) console.warn(line);

for (const line of problems) console.error(line);
if (problems.length > 0) {
  console.error(`check_repo: ${problems.length} problem(s)`);
  Deno.exit(1);
}
console.log(
  `check_repo: ok (${members.length} members, versions, imports, no cycles, no jargon${
    warnings.length > 0 ? `; ${warnings.length} large file(s)` : ""
  })`,
);
