/**
 * Tests that need Deno's QUIC API, which only exists with `--unstable-net`,
 * while the repository's test task (`deno test -A --doc`) runs without it.
 *
 * {@linkcode quicTest} registers a test under its name either way. With
 * the flag (`deno test -A --unstable-net tests/h3_e2e_test.ts`) it runs
 * in-process. Without it, the first such test of a file runs the whole
 * file once in a child `deno test -A --unstable-net` with a JUnit report,
 * and each test passes or fails with its own result from that report (its
 * failure message included), so the counts and names of the outer run stay
 * true. The child's `skipped:` lines are printed by the outer run.
 *
 * ```ts ignore
 * import { quicTest } from "./support/unstable_net.ts";
 *
 * quicTest(import.meta.url, "a GET over HTTP/3", async () => {
 *   // ... Deno.connectQuic is available here
 * });
 * ```
 *
 * @module
 */

/** Whether this process has Deno's QUIC API (`--unstable-net`). */
export const QUIC_AVAILABLE: boolean =
  typeof (Deno as { QuicEndpoint?: unknown }).QuicEndpoint === "function";

/** One test's result in the child's JUnit report. */
interface ChildResult {
  failure: string | undefined;
  skipped: boolean;
}

interface ChildRun {
  results: Map<string, ChildResult>;
  output: string;
  reported: boolean;
}

const runs = new Map<string, Promise<ChildRun>>();

function unescapeXml(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}

/** Reads the `<testcase>` elements of a JUnit report. */
function parseJunit(xml: string): Map<string, ChildResult> {
  const results = new Map<string, ChildResult>();
  const cases = xml.matchAll(
    /<testcase name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g,
  );
  for (const [, name, inner = ""] of cases) {
    const failure = /<failure[^>]*>([\s\S]*?)<\/failure>/.exec(inner);
    results.set(unescapeXml(name!), {
      failure: failure === null ? undefined : unescapeXml(failure[1]!),
      skipped: /<skipped\s*\/>/.test(inner),
    });
  }
  return results;
}

async function runChild(file: string): Promise<ChildRun> {
  const dir = await Deno.makeTempDir({ prefix: "unstable_net_" });
  const report = `${dir}/report.xml`;
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "test",
        "-A",
        "--unstable-net",
        "--no-check",
        `--junit-path=${report}`,
        new URL(file).pathname,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const output = new TextDecoder().decode(out.stdout) +
      new TextDecoder().decode(out.stderr);
    let xml = "";
    try {
      xml = await Deno.readTextFile(report);
    } catch {
      // The child failed before writing a report: each test says so.
    }
    return { results: parseJunit(xml), output, reported: false };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * Registers a test that needs `--unstable-net`; see the module doc.
 *
 * @param file The test file's `import.meta.url`.
 * @param name The test's name (unique in the file).
 * @param fn The test.
 */
export function quicTest(
  file: string,
  name: string,
  fn: () => void | Promise<void>,
): void {
  if (QUIC_AVAILABLE) {
    Deno.test({ name, fn });
    return;
  }
  Deno.test({
    name: `${name} (child with --unstable-net)`,
    // The child runs the whole file: its ops are not this test's.
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      let run = runs.get(file);
      if (run === undefined) {
        run = runChild(file);
        runs.set(file, run);
      }
      const child = await run;
      if (!child.reported) {
        child.reported = true;
        for (const line of child.output.split("\n")) {
          if (/skipped/i.test(line)) console.log(line.trim());
        }
      }
      const result = child.results.get(name);
      if (result === undefined) {
        throw new Error(
          `Cannot find "${name}" in the child's report:\n${child.output}`,
        );
      }
      if (result.failure !== undefined) throw new Error(result.failure);
    },
  });
}
