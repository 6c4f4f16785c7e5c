/**
 * What happens to a request after its handler was called: whether the
 * client is still there (the web request's `signal`) and whether the
 * response reached it (`info.completed` of `serve()`). Internal to the
 * package.
 *
 * An {@linkcode Exchange} is made only when something asks (see
 * `exchangeOf` in `request.ts`): a request nobody watches costs the drivers
 * one field check.
 *
 * @module
 */

/** The protocol driver behind a request, as the exchange needs it. */
export interface ExchangeDriver {
  /**
   * Starts noticing that the client goes away while this request is in
   * flight. HTTP/1.1 needs a read on the socket for it, started once the
   * request body is done; HTTP/2 learns it from RST_STREAM and the end of
   * the connection, and needs nothing.
   */
  watch(exchange: Exchange): void;
}

const PENDING = 0;
const DELIVERED = 1;
const FAILED = 2;

/**
 * The state of one exchange: aborted or not, delivered, failed or pending.
 *
 * @example Abort and completion
 * ```ts
 * import assert from "node:assert/strict";
 * import { Exchange } from "./exchange.ts";
 *
 * const exchange = new Exchange(undefined);
 * let aborted = false;
 * exchange.onAbort(() => aborted = true);
 * exchange.abort();
 * assert.equal(aborted, true);
 * exchange.fail(new Error("client went away"));
 * await assert.rejects(exchange.completed);
 * ```
 */
export class Exchange {
  /** The driver serving the request, when a server serves it. */
  readonly driver: ExchangeDriver | undefined;
  #listeners: (() => void)[] | undefined;
  #aborted = false;
  #state = PENDING;
  #error: unknown;
  #completed: PromiseWithResolvers<void> | undefined;

  /**
   * Creates the exchange of a request.
   *
   * @param driver The driver serving it, if any.
   */
  constructor(driver: ExchangeDriver | undefined) {
    this.driver = driver;
  }

  /** Whether the client went away or the server gave up on the request. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Whether the response was delivered or failed: the exchange is over. */
  get settled(): boolean {
    return this.#state !== PENDING;
  }

  /**
   * Calls `listener` once the exchange is aborted (at once when it is), and
   * asks the driver to watch the client.
   *
   * @param listener Called once.
   */
  onAbort(listener: () => void): void {
    if (this.#aborted) return listener();
    (this.#listeners ??= []).push(listener);
    if (this.#state === PENDING) this.driver?.watch(this);
  }

  /** The client closed the connection or reset the stream, or the server's stop deadline passed. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener();
      } catch {
        // An AbortSignal reports its listeners' errors itself.
      }
    }
  }

  /** The response was written completely. */
  complete(): void {
    if (this.#state !== PENDING) return;
    this.#state = DELIVERED;
    this.#completed?.resolve();
  }

  /**
   * The response could not be delivered (the client went away, the
   * server stopped, the body failed).
   *
   * @param error Why.
   */
  fail(error: unknown): void {
    if (this.#state !== PENDING) return;
    this.#state = FAILED;
    this.#error = error;
    this.#completed?.reject(error);
  }

  /**
   * Settles once the response was written completely; rejects when it
   * could not be. Made on first use; a rejection nobody awaits is not
   * reported as unhandled.
   */
  get completed(): Promise<void> {
    if (this.#completed === undefined) {
      this.#completed = Promise.withResolvers<void>();
      this.#completed.promise.catch(() => {});
      if (this.#state === DELIVERED) this.#completed.resolve();
      else if (this.#state === FAILED) this.#completed.reject(this.#error);
    }
    return this.#completed.promise;
  }
}
