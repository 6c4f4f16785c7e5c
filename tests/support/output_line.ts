/**
 * Reading a child process's output line by line, as tests that start a
 * server process and wait for it to say where it listens do.
 *
 * @module
 */

/** How long a process gets to print the line, by default. */
const LINE_TIMEOUT_MS = 30_000;

/**
 * Reads a process's output until a line matches, then reads and drops the
 * rest in the background, so the process never blocks on a full pipe.
 *
 * @param stream The process's piped standard output (or error).
 * @param pattern What the line must match.
 * @param timeoutMs How long to wait for it.
 * @returns The first matching line, without its line break.
 * @throws {Error} When the output ends, or the time passes, first.
 */
export async function firstLine(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
  timeoutMs: number = LINE_TIMEOUT_MS,
): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => reader.cancel(), timeoutMs);
  let text = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`No line matching ${pattern} in:\n${text}`);
      text += value;
      const line = text.split("\n").slice(0, -1).find((l) => pattern.test(l));
      if (line !== undefined) {
        (async () => {
          while (!(await reader.read()).done) { /* drop */ }
        })().catch(() => {});
        return line;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}
