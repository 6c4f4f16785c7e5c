/**
 * Addresses written `HOST:PORT`, `[IPv6]:PORT` or `PORT`, as
 * `--metrics-bind` takes them.
 *
 * @module
 */
import { UsageError } from "../errors.ts";

/** The highest TCP port. */
export const MAX_PORT = 65535;

/** A TCP address to listen on. */
export interface HostPort {
  /** The address bound, such as `127.0.0.1` or `::1`. */
  hostname: string;
  /** The port; 0 picks a free one. */
  port: number;
}

/**
 * Parses an address; without a host, `defaultHost` is bound.
 *
 * @param name The flag, key or variable, for the message.
 * @param value Such as `127.0.0.1:9100`, `[::1]:9100` or `9100`.
 * @param defaultHost The host of a bare port.
 * @returns The address.
 * @throws {UsageError} When it is not such an address.
 */
export function parseHostPort(
  name: string,
  value: string,
  defaultHost: string,
): HostPort {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]:|([^\s:/[\]]+):)?(\d{1,5})$/.exec(
    value.trim(),
  );
  const port = match ? Number(match[3]) : NaN;
  if (match === null || port > MAX_PORT) {
    throw new UsageError(
      match === null ? "wrong-type" : "out-of-range",
      `Cannot use ${name} "${value}": expected [HOST:]PORT with a port from 0 to ${MAX_PORT}, such as 127.0.0.1:9100`,
    );
  }
  return { hostname: match[1] ?? match[2] ?? defaultHost, port };
}
