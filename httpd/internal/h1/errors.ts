/**
 * The error of the HTTP/1.1 codec.
 *
 * @module
 */

/**
 * A request the HTTP/1.1 codec refuses. `status` is the response to send
 * before closing the connection (RFC 9112 says to close after each of these),
 * `offset` the byte position of the problem in the input.
 */
export class H1ParseError extends SyntaxError {
  /** The status to answer: 400, 408, 413, 414, 431, 501 or 505. */
  readonly status: number;
  /** Offset of the offending byte from the start of the parsed input. */
  readonly offset: number;

  /**
   * Creates a parse error.
   *
   * @param status The status to answer.
   * @param message What was wrong.
   * @param offset Where it was wrong.
   */
  constructor(status: number, message: string, offset: number) {
    super(message);
    this.name = "H1ParseError";
    this.status = status;
    this.offset = offset;
  }
}
