/**
 * Writes one line to a synchronous stream (standard output or error), the
 * whole of it even when the stream takes it in parts.
 *
 * @module
 */

const encoder = new TextEncoder();

/** A stream with a synchronous write, such as `Deno.stdout`. */
export interface SyncWriter {
  /** Writes some of `p`, returning how many bytes were taken. */
  writeSync(p: Uint8Array): number;
}

/**
 * Writes `line` and a newline.
 *
 * @param stream Where to write.
 * @param line The text, without its newline.
 */
export function writeLine(stream: SyncWriter, line: string): void {
  let bytes = encoder.encode(line + "\n");
  while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
}
