/**
 * PROXY protocol headers for tests, written as HAProxy's specification
 * lays them out (section 2.1 for v1, 2.2 for v2), so tests can play the
 * load balancer on a raw socket.
 *
 * ```ts
 * import { proxyV1, proxyV2 } from "./proxy_header.ts";
 *
 * const text = proxyV1("203.0.113.7", 50000); // PROXY TCP4 203.0.113.7 127.0.0.1 50000 80\r\n
 * const binary = proxyV2({ source: "2001:db8::7", port: 50000 });
 * ```
 *
 * @module
 */

/** The twelve bytes a v2 header starts with. */
export const V2_SIGNATURE: Uint8Array = Uint8Array.of(
  0x0d,
  0x0a,
  0x0d,
  0x0a,
  0x00,
  0x0d,
  0x0a,
  0x51,
  0x55,
  0x49,
  0x54,
  0x0a,
);

/**
 * A v1 line for a TCP client, to `127.0.0.1:80` (or `::1`).
 *
 * @param source The client's address, IPv4 or IPv6.
 * @param port The client's port.
 * @returns The line with its CRLF.
 */
export function proxyV1(source: string, port: number): Uint8Array {
  const v6 = source.includes(":");
  const destination = v6 ? "::1" : "127.0.0.1";
  return new TextEncoder().encode(
    `PROXY ${v6 ? "TCP6" : "TCP4"} ${source} ${destination} ${port} 80\r\n`,
  );
}

/** What {@linkcode proxyV2} writes. */
export interface ProxyV2Options {
  /** The client's address; absent for a LOCAL header. */
  source?: string;
  /** The client's port. Default 50000. */
  port?: number;
  /** TLVs appended after the addresses. */
  tlvs?: { type: number; value: Uint8Array }[];
}

/**
 * A v2 header: PROXY over TCP with the client's address (to `127.0.0.1:80`
 * or `::1`), or LOCAL without `source`.
 *
 * @param options The client and TLVs.
 * @returns The header.
 */
export function proxyV2(options: ProxyV2Options = {}): Uint8Array {
  const { source, port = 50000, tlvs = [] } = options;
  const body: number[] = [];
  let verCmd = 0x20; // LOCAL
  let family = 0x00;
  if (source !== undefined) {
    verCmd = 0x21;
    const v6 = source.includes(":");
    family = v6 ? 0x21 : 0x11;
    body.push(...(v6 ? v6Bytes(source) : v4Bytes(source)));
    body.push(...(v6 ? v6Bytes("::1") : [127, 0, 0, 1]));
    body.push(port >> 8, port & 0xff, 0, 80);
  }
  for (const { type, value } of tlvs) {
    body.push(type, value.length >> 8, value.length & 0xff, ...value);
  }
  return Uint8Array.of(
    ...V2_SIGNATURE,
    verCmd,
    family,
    body.length >> 8,
    body.length & 0xff,
    ...body,
  );
}

function v4Bytes(text: string): number[] {
  return text.split(".").map(Number);
}

function v6Bytes(text: string): number[] {
  const [head, tail = ""] = text.split("::");
  const groups = (s: string) => s === "" ? [] : s.split(":");
  const h = groups(head!);
  const t = text.includes("::") ? groups(tail) : [];
  const all = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}
