/**
 * An access-log sink that holds lines until it is opened, so a worker's
 * first lines cannot reach standard output before the launcher's
 * `Listening on` lines.
 *
 * @module
 */
import type { AccessLogSink } from "@org/httpd";

/** How many characters of lines may wait for the opening; past it lines are dropped and counted. */
export const MAX_HELD_CHARS = 1024 * 1024;

/** Holds lines until {@linkcode HeldLines.open}, then passes them through. */
export class HeldLines {
  /** How many lines were dropped while held because the bound was reached. */
  dropped = 0;
  #target: AccessLogSink;
  #held: string[] | undefined = [];
  #heldChars = 0;

  /**
   * Creates a closed sink.
   *
   * @param target Where lines go once open.
   */
  constructor(target: AccessLogSink) {
    this.#target = target;
  }

  /** The sink to give the access-log filter. */
  readonly sink: AccessLogSink = (line) => {
    if (this.#held === undefined) return this.#target(line);
    if (this.#heldChars + line.length > MAX_HELD_CHARS) {
      this.dropped++;
      return;
    }
    this.#held.push(line);
    this.#heldChars += line.length;
  };

  /** Passes the held lines on, in order, and every later line at once. */
  open(): void {
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    this.#heldChars = 0;
    for (const line of held) this.#target(line);
  }
}
