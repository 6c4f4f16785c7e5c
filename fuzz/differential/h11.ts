/**
 * The HTTP/1.1 differential: the same generated requests (valid, almost
 * valid, smuggling shapes) through our head parser and body framing and
 * through Python's h11, compared on whether each accepts the first
 * request, where it ends, its request line, fields, body and trailers.
 * Disagreements are grouped into classes (deduplicated by what differs and
 * each side's verdict), each with its shortest example; FUZZING.md decides
 * every class by RFC 9112.
 *
 * @module
 */
import fc from "fast-check";
import { ChunkedDecoder } from "../../httpd/internal/h1/chunked.ts";
import { H1ParseError } from "../../httpd/internal/h1/errors.ts";
import { HeadParser } from "../../httpd/internal/h1/parse.ts";
import { llhttpRequests } from "../corpus.ts";
import { almostValidRequest } from "../generators/h1.ts";
import { latin1Bytes, latin1Text, show } from "../harness.ts";
import { mutated } from "../mutate.ts";
import type { Job, WorkerMessage } from "../protocol.ts";

/** One parser's verdict on one input. */
export interface Verdict {
  /** Accepted whole, waiting for more bytes, or refused. */
  s: "ok" | "incomplete" | "error";
  m?: string;
  t?: string;
  v?: string;
  h?: [string, string][];
  b?: string;
  tr?: [string, string][];
  /** Offset one past the end of the first message. */
  e?: number;
  /** The refusal's message. */
  err?: string;
}

const LIMITS = {
  maxHeadBytes: 16 * 1024,
  maxRequestLineBytes: 8 * 1024,
  maxHeaderCount: 100,
};

/** Our side: `HeadParser`, then Content-Length or `ChunkedDecoder` framing. */
export function ours(bytes: Uint8Array): Verdict {
  try {
    const head = new HeadParser(LIMITS).parse(bytes, 0, bytes.length);
    if (head === null) return { s: "incomplete" };
    const base: Verdict = {
      s: "incomplete",
      m: head.method,
      t: head.target,
      v: `1.${head.minor}`,
      h: head.names.map((n, i) => [n, head.values[i]!]),
    };
    if (head.chunked) {
      const decoder = new ChunkedDecoder();
      let pos = head.end;
      let body = "";
      while (pos < bytes.length && !decoder.done) {
        pos = decoder.step(bytes, pos, bytes.length);
        body += latin1Text(bytes.subarray(decoder.dataStart, decoder.dataEnd));
      }
      if (!decoder.done) return base;
      return {
        ...base,
        s: "ok",
        b: body,
        tr: decoder.trailerNames.map((n, i) => [n, decoder.trailerValues[i]!]),
        e: pos,
      };
    }
    const length = Math.max(0, head.contentLength);
    if (bytes.length - head.end < length) return base;
    return {
      ...base,
      s: "ok",
      b: latin1Text(bytes.subarray(head.end, head.end + length)),
      tr: [],
      e: head.end + length,
    };
  } catch (error) {
    if (error instanceof H1ParseError) {
      return { s: "error", err: `${error.status} ${error.message}` };
    }
    throw error;
  }
}

/** A python3 that imports h11, or `undefined`. */
async function findPython(): Promise<string | undefined> {
  for (const python of ["python3", "/usr/bin/python3"]) {
    try {
      const { success } = await new Deno.Command(python, {
        args: ["-c", "import h11"],
        stdout: "null",
        stderr: "null",
      }).output();
      if (success) return python;
    } catch {
      // Not installed: try the next.
    }
  }
  return undefined;
}

const ORACLE = new URL("./h11_oracle.py", import.meta.url);

/** h11's verdicts on a batch, one Python process per batch. */
async function theirs(
  python: string,
  inputs: Uint8Array[],
): Promise<Verdict[]> {
  let size = 0;
  for (const input of inputs) size += 4 + input.length;
  const framed = new Uint8Array(size);
  const view = new DataView(framed.buffer);
  let at = 0;
  for (const input of inputs) {
    view.setUint32(at, input.length);
    framed.set(input, at + 4);
    at += 4 + input.length;
  }
  const child = new Deno.Command(python, {
    args: [ORACLE.pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const writing = writer.write(framed).then(() => writer.close());
  const [output] = await Promise.all([child.output(), writing]);
  if (!output.success) {
    throw new Error(
      `h11 oracle failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
  return lines.map((l) => JSON.parse(l) as Verdict);
}

/** Replaces quoted text and numbers in a message, so messages group. */
function shape(message: string | undefined): string {
  return (message ?? "")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/b'[^']*'|b"[^"]*"/g, "b'…'")
    .replace(/\d+/g, "N");
}

/**
 * The class of a disagreement, or `undefined` when the two agree: each
 * side's verdict (with its error message's shape) and, when both accepted,
 * the parts that differ.
 */
export function disagreement(a: Verdict, b: Verdict): string | undefined {
  // A refusal against a head the other side took (whole, or waiting for
  // the rest of the body) is one class per refusal message.
  if (a.s === "error" && b.s !== "error") {
    return `ours refuses (${shape(a.err)}), h11 accepts`;
  }
  if (b.s === "error" && a.s !== "error") {
    return `h11 refuses (${shape(b.err)}), ours accepts`;
  }
  if (a.s !== b.s) return `framing: ours ${a.s}, h11 ${b.s}`;
  if (a.s !== "ok") return undefined;
  const differs: string[] = [];
  if (a.e !== b.e) differs.push("end");
  if (a.m !== b.m || a.t !== b.t) differs.push("request line");
  if (a.v !== b.v) differs.push("version");
  if (JSON.stringify(a.h) !== JSON.stringify(b.h)) differs.push("fields");
  if (a.b !== b.b) differs.push("body");
  if (JSON.stringify(a.tr) !== JSON.stringify(b.tr)) differs.push("trailers");
  return differs.length === 0
    ? undefined
    : `both accept, differ in ${differs.join(", ")}`;
}

/** One class of disagreement with its shortest example. */
export interface DisagreementClass {
  key: string;
  count: number;
  example: string;
  ours: Verdict;
  theirs: Verdict;
}

const BATCH = 5_000;

/**
 * Runs the differential in a worker: generates `job.runs` inputs with
 * seed `job.seed` (batch `k` uses `seed + k`), compares, and reports the
 * classes as notes.
 */
export async function runDifferential(
  job: Job,
  counter: Int32Array,
  post: (m: WorkerMessage) => void,
): Promise<void> {
  const started = performance.now();
  const python = await findPython();
  if (python === undefined) {
    post({
      kind: "done",
      runs: 0,
      ms: performance.now() - started,
      heap: [],
      notes: [
        "SKIPPED: no python3 with h11 (apt-get install -y python3-h11)",
      ],
    });
    return;
  }
  const corpus = await llhttpRequests();
  const arbitrary = fc.oneof(
    {
      weight: 4,
      arbitrary: almostValidRequest.map((r) => latin1Bytes(r.text)),
    },
    { weight: 1, arbitrary: mutated(corpus) },
  );
  const classes = new Map<string, DisagreementClass>();
  let done = 0;
  for (let batch = 0; done < job.runs; batch++) {
    const seed = (job.seed + batch) | 0;
    post({ kind: "batch", seed, start: done });
    const n = Math.min(BATCH, job.runs - done);
    const inputs = fc.sample(arbitrary, { numRuns: n, seed });
    const verdicts = await theirs(python, inputs);
    inputs.forEach((input, i) => {
      Atomics.add(counter, 0, 1);
      const a = ours(input);
      const b = verdicts[i]!;
      const key = disagreement(a, b);
      if (key === undefined) return;
      const known = classes.get(key);
      const example = show(input);
      if (known === undefined) {
        classes.set(key, { key, count: 1, example, ours: a, theirs: b });
      } else {
        known.count++;
        if (example.length < known.example.length) {
          known.example = example;
          known.ours = a;
          known.theirs = b;
        }
      }
    });
    done += n;
    post({
      kind: "progress",
      runs: done,
      heapUsed: Deno.memoryUsage().heapUsed,
    });
  }
  const sorted = [...classes.values()].sort((x, y) => y.count - x.count);
  const notes = [
    `${sorted.length} disagreement class(es) with h11`,
    ...sorted.map((c) =>
      `${c.count.toLocaleString("en-US")} × ${c.key}: ${c.example}` +
      (c.ours.err || c.theirs.err
        ? `  [ours: ${c.ours.err ?? c.ours.s}; h11: ${
          c.theirs.err ?? c.theirs.s
        }]`
        : "")
    ),
  ];
  if (job.report !== undefined) {
    await Deno.writeTextFile(
      job.report,
      JSON.stringify(sorted, null, 2) + "\n",
    );
  }
  post({
    kind: "done",
    runs: done,
    ms: performance.now() - started,
    heap: [],
    notes,
  });
}
