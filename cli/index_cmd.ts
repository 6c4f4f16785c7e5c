/**
 * `httpd-cli index DIR [--compress gzip,br,zstd] [--threshold BYTES]`: the build
 * step that writes `static-index.json` and precompressed sidecars.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  buildStaticIndex,
  DEFAULT_COMPRESS_THRESHOLD,
  type SidecarCoding,
} from "@org/httpd";
import { UsageError } from "./errors.ts";
import type { LineWriter } from "./serve.ts";
import { writeLine } from "./internal/write_line.ts";

// The help text of `httpd-cli index`.
const INDEX_HELP =
  `Usage: httpd-cli index DIR [--compress gzip,br,zstd] [--threshold BYTES]

Writes DIR/static-index.json (path, size, content-hash ETag, modification
time, sidecars) and precompressed sidecars for the static file handler.
Re-running it redoes only what changed.

Options:
  --compress LIST    Sidecars to write: gzip, br, zstd, or none (default none)
  --threshold BYTES  Only files larger than this get sidecars (default ${DEFAULT_COMPRESS_THRESHOLD})
  -h, --help         Print this help
`;

/** Options of {@linkcode runIndex}. */
export interface RunIndexOptions {
  /** Standard output lines. Default: the process's standard output. */
  stdout?: LineWriter;
  /** Standard error lines. Default: the process's standard error. */
  stderr?: LineWriter;
}

const CODINGS: readonly SidecarCoding[] = ["gzip", "br", "zstd"];

/**
 * Runs `httpd-cli index`: indexes a directory and writes its sidecars.
 *
 * @param args The arguments after `index`, such as `["dist", "--compress", "gzip,br"]`.
 * @param options Where output goes.
 * @returns The exit status: 0 on success, 2 for a usage mistake (one line
 * on standard error naming the flag), 1 when the directory cannot be read.
 *
 * @example Index a directory
 * ```ts
 * import { runIndex } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.css`, "p { margin: 0 }\n".repeat(100));
 * const lines: string[] = [];
 * const status = await runIndex([dir, "--compress", "gzip,br"], {
 *   stdout: (line) => lines.push(line),
 * });
 * assert.equal(status, 0);
 * assert.ok((await Deno.stat(`${dir}/a.css.br`)).isFile);
 * assert.equal(await runIndex([dir, "--level", "9"], { stderr: () => {} }), 2);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runIndex(
  args: string[],
  options?: RunIndexOptions,
): Promise<number> {
  const out = options?.stdout ??
    ((line: string) => writeLine(Deno.stdout, line));
  const err = options?.stderr ??
    ((line: string) => writeLine(Deno.stderr, line));
  let dir: string;
  let compress: SidecarCoding[];
  let threshold: number;
  try {
    const parsed = parse(args);
    if (parsed === "help") {
      out(INDEX_HELP.trimEnd());
      return 0;
    }
    ({ dir, compress, threshold } = parsed);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(error.line);
    return error.exitCode;
  }
  try {
    const result = await buildStaticIndex(dir, { compress, threshold });
    out(
      `Indexed ${result.files} files in ${dir}: ${result.hashed} hashed, ` +
        `${result.sidecarsWritten} sidecars written, ${result.sidecarsRemoved} removed, ` +
        `static-index.json ${result.indexWritten ? "written" : "unchanged"}`,
    );
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    err(`httpd-cli: Cannot index "${dir}": ${reason}`);
    return 1;
  }
}

function parse(
  args: string[],
): { dir: string; compress: SidecarCoding[]; threshold: number } | "help" {
  let values: { compress?: string; threshold?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        compress: { type: "string" },
        threshold: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw usageOf(error);
  }
  if (values.help) return "help";
  if (positionals.length === 0) {
    throw new UsageError(
      "missing-root",
      "Cannot index: no directory given (httpd-cli index DIR)",
    );
  }
  if (positionals.length > 1) {
    throw new UsageError(
      "unexpected-argument",
      `Cannot use argument "${
        positionals[1]
      }": only one directory may be given`,
    );
  }
  const compress: SidecarCoding[] = [];
  for (const raw of (values.compress ?? "none").split(",")) {
    const coding = raw.trim().toLowerCase();
    if (coding === "none" || coding === "") continue;
    if (!CODINGS.includes(coding as SidecarCoding)) {
      throw new UsageError(
        "wrong-type",
        `Cannot use --compress: expected gzip, br, zstd or none, got "${raw}"`,
      );
    }
    if (!compress.includes(coding as SidecarCoding)) {
      compress.push(coding as SidecarCoding);
    }
  }
  let threshold = DEFAULT_COMPRESS_THRESHOLD;
  if (values.threshold !== undefined) {
    if (
      !/^\d+$/.test(values.threshold) ||
      !Number.isSafeInteger(Number(values.threshold))
    ) {
      throw new UsageError(
        "wrong-type",
        `Cannot use --threshold: expected a number of bytes, got "${values.threshold}"`,
      );
    }
    threshold = Number(values.threshold);
  }
  return { dir: positionals[0]!, compress, threshold };
}

// node:util parseArgs errors carry a code and quote the flag in the message.
function usageOf(error: unknown): UsageError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  // Quoted as '--name', '-h, --help' or '--name <value>'.
  const flag = /'(?:-\w, )?(--?[\w-]+)/.exec(message)?.[1] ?? "?";
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return new UsageError("unknown-flag", `Unknown flag "${flag}"`, {
        cause: error,
      });
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return message.includes("does not take")
        ? new UsageError(
          "unexpected-value",
          `Cannot use ${flag}: it takes no value`,
          {
            cause: error,
          },
        )
        : new UsageError(
          "missing-value",
          `Cannot use ${flag}: it needs a value`,
          {
            cause: error,
          },
        );
    default:
      return new UsageError(
        "unexpected-argument",
        `Cannot parse arguments: ${message}`,
        {
          cause: error,
        },
      );
  }
}
