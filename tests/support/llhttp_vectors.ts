/**
 * Reads the llhttp markdown corpus in `tests/testdata/llhttp` (see its
 * README.md) into test cases: input bytes and the expected messages or error.
 *
 * @module
 */

/** One expected message. */
export interface ExpectedMessage {
  method: string;
  url: string;
  version: string;
  headers: [string, string][];
  trailers: [string, string][];
  body: string;
}

/** One case of the corpus. */
export interface VectorCase {
  file: string;
  name: string;
  type: string;
  noScan: boolean;
  /** llhttp API features (pausing, skipping bodies) the oracle cannot show. */
  apiOnly: boolean;
  input: Uint8Array;
  /** Set when llhttp stops with a real error. */
  error: { code: number; reason: string } | undefined;
  messages: ExpectedMessage[];
}

/** The vendored request corpus, `tests/testdata/llhttp/request/`. */
export const VECTOR_DIR = new URL(
  "../testdata/llhttp/request/",
  import.meta.url,
);

/**
 * Turns the text of an ```http block into bytes, exactly as the README says.
 *
 * @param block The block's text, without the fences.
 * @returns The bytes.
 */
export function blockToBytes(block: string): Uint8Array {
  let text = block.replace(/\n$/, "").replace(/\\\n/g, "");
  text = text.replace(/\n/g, "\r\n");
  text = text.replace(
    /\\(r|n|t|f|x[0-9a-fA-F]{2}|[0-7]{3})/g,
    (_, e: string) => {
      switch (e[0]) {
        case "r":
          return "\r";
        case "n":
          return "\n";
        case "t":
          return "\t";
        case "f":
          return "\f";
        case "x":
          return String.fromCharCode(parseInt(e.slice(1), 16));
        default:
          return String.fromCharCode(parseInt(e, 8));
      }
    },
  );
  return new TextEncoder().encode(text);
}

function unquote(raw: string): string {
  if (raw === "cr") return "\r";
  if (raw === "lf") return "\n";
  return raw.slice(1, -1).replace(/\\t/g, "\t").replace(/\\f/g, "\f");
}

function parseLog(log: string): Pick<VectorCase, "error" | "messages"> {
  const messages: ExpectedMessage[] = [];
  let error: VectorCase["error"];
  let current: ExpectedMessage | undefined;
  let inTrailers = false;
  let field = "";
  let value = "";
  let pending = false;
  const flush = () => {
    if (!pending || !current) return;
    (inTrailers ? current.trailers : current.headers).push([
      field,
      value.replace(/^[ \t]+|[ \t]+$/g, ""),
    ]);
    field = value = "";
    pending = false;
  };
  for (const line of log.split("\n")) {
    const span = line.match(/^off=\d+ len=\d+ span\[([\w.]+)\]=(".*"|cr|lf)$/);
    if (span) {
      const [, kind, raw] = span;
      const text = unquote(raw!);
      if (!current) continue;
      if (kind === "method") current.method += text;
      else if (kind === "url") current.url += text;
      else if (kind === "version") current.version += text;
      else if (kind === "header_field") {
        if (pending && value !== "") flush();
        field += text;
        pending = true;
      } else if (kind === "header_value") value += text;
      else if (kind === "body") current.body += text;
      continue;
    }
    if (/ message begin$/.test(line)) {
      current = {
        method: "",
        url: "",
        version: "",
        headers: [],
        trailers: [],
        body: "",
      };
      inTrailers = false;
    } else if (/ header_value complete$/.test(line)) flush();
    else if (/ headers complete /.test(line)) {
      flush();
      inTrailers = true;
    } else if (/ message complete$/.test(line) && current) {
      flush();
      messages.push(current);
      current = undefined;
    } else {
      const err = line.match(/^off=\d+ error code=(\d+) reason="(.*)"$/);
      if (err) {
        const code = Number(err[1]);
        if (code !== 22 && code !== 23) error = { code, reason: err[2]! };
      }
    }
  }
  return { error, messages };
}

/**
 * Loads every case of one corpus file.
 *
 * @param file A file name in the request folder, such as `sample.md`.
 * @returns Its cases.
 */
export async function loadCases(file: string): Promise<VectorCase[]> {
  const text = await Deno.readTextFile(new URL(file, VECTOR_DIR));
  const cases: VectorCase[] = [];
  const re =
    /^#+ (.+)\n+<!-- meta=(\{.*\}) -->\n```http\n([\s\S]*?)```\n+```log\n([\s\S]*?)```/gm;
  for (const m of text.matchAll(re)) {
    const meta = JSON.parse(m[2]!);
    cases.push({
      file,
      name: m[1]!.trim(),
      type: meta.type,
      noScan: meta.noScan === true,
      apiOnly: meta.skipBody !== undefined || meta.pause !== undefined,
      input: blockToBytes(m[3]!),
      ...parseLog(m[4]!),
    });
  }
  return cases;
}
