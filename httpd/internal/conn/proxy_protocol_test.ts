import assert from "node:assert/strict";
import {
  formatAddress,
  MAX_V1_LINE_BYTES,
  MAX_V2_HEADER_BYTES,
  parseProxyHeader,
  type ProxyHeader,
  ProxyHeaderError,
  type ProxyHeaderErrorCode,
  type ProxyVersions,
} from "./proxy_protocol.ts";

const text = (s: string) => new TextEncoder().encode(s);

/** The v2 signature of section 2.2. */
const SIG = [
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
];

/** A v2 header: version/command byte, family byte, then the body; the length is the body's unless given. */
function v2(
  verCmd: number,
  family: number,
  body: number[],
  length = body.length,
): Uint8Array {
  return Uint8Array.of(
    ...SIG,
    verCmd,
    family,
    length >> 8,
    length & 0xff,
    ...body,
  );
}

const TCP4_BODY = [
  ...[192, 168, 0, 1],
  ...[192, 168, 0, 11],
  ...[0xdc, 0x04], // 56324
  ...[0x01, 0xbb], // 443
];

const V6_SRC = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01];
const V6_DST = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02];
const TCP6_BODY = [...V6_SRC, ...V6_DST, 0x30, 0x39, 0x00, 0x50];

function unixField(path: string): number[] {
  const out = new Array<number>(108).fill(0);
  text(path).forEach((b, i) => out[i] = b);
  return out;
}

interface Valid {
  name: string;
  bytes: Uint8Array;
  accept?: ProxyVersions;
  expect: Partial<ProxyHeader>;
}

const VALID: Valid[] = [
  {
    name: "v1 TCP4, the example of section 2.1",
    bytes: text("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n"),
    expect: {
      version: 1,
      command: "proxy",
      length: 47,
      source: { transport: "tcp", hostname: "192.168.0.1", port: 56324 },
      destination: { transport: "tcp", hostname: "192.168.0.11", port: 443 },
      tlvs: [],
    },
  },
  {
    name: "v1 TCP4 with the request after it",
    bytes: text(
      "PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\nGET / HTTP/1.1\r\nHost: 192.168.0.11\r\n\r\n",
    ),
    expect: { length: 47 },
  },
  {
    name: "v1 TCP4, the longest line of section 2.1",
    bytes: text("PROXY TCP4 255.255.255.255 255.255.255.255 65535 65535\r\n"),
    expect: {
      length: 56,
      source: { transport: "tcp", hostname: "255.255.255.255", port: 65535 },
    },
  },
  {
    name: "v1 TCP6, written long, comes out canonical",
    bytes: text(
      "PROXY TCP6 2001:0DB8:0000:0000:0000:0000:0000:0001 ::1 0 8080\r\n",
    ),
    expect: {
      source: { transport: "tcp", hostname: "2001:db8::1", port: 0 },
      destination: { transport: "tcp", hostname: "::1", port: 8080 },
    },
  },
  {
    name: "v1 TCP6 with an IPv4-mapped source",
    bytes: text("PROXY TCP6 ::ffff:203.0.113.7 ::1 1234 80\r\n"),
    expect: {
      source: { transport: "tcp", hostname: "::ffff:203.0.113.7", port: 1234 },
    },
  },
  {
    name: "v1 TCP6, the longest line of section 2.1 (104 bytes)",
    bytes: text(
      `PROXY TCP6 ${"ffff:".repeat(7)}ffff ${
        "ffff:".repeat(7)
      }ffff 65535 65535\r\n`,
    ),
    expect: { length: 104 },
  },
  {
    name: "v1 UNKNOWN, short form",
    bytes: text("PROXY UNKNOWN\r\n"),
    expect: { version: 1, length: 15, source: undefined },
  },
  {
    name: "v1 UNKNOWN, the worst case of 107 bytes, rest ignored",
    bytes: text(
      `PROXY UNKNOWN ${"ffff:".repeat(7)}ffff ${
        "ffff:".repeat(7)
      }ffff 65535 65535\r\n`,
    ),
    expect: { length: MAX_V1_LINE_BYTES, source: undefined },
  },
  {
    name: "v1 on a v1-only listener",
    bytes: text("PROXY TCP4 10.0.0.1 10.0.0.2 1 2\r\n"),
    accept: "v1",
    expect: {
      source: { transport: "tcp", hostname: "10.0.0.1", port: 1 },
    },
  },
  {
    name: "v2 PROXY TCP over IPv4",
    bytes: v2(0x21, 0x11, TCP4_BODY),
    expect: {
      version: 2,
      command: "proxy",
      length: 28,
      source: { transport: "tcp", hostname: "192.168.0.1", port: 56324 },
      destination: { transport: "tcp", hostname: "192.168.0.11", port: 443 },
      tlvs: [],
    },
  },
  {
    name: "v2 PROXY TCP over IPv6",
    bytes: v2(0x21, 0x21, TCP6_BODY),
    accept: "v2",
    expect: {
      length: 52,
      source: { transport: "tcp", hostname: "2001:db8::1", port: 12345 },
      destination: { transport: "tcp", hostname: "2001:db8::2", port: 80 },
    },
  },
  {
    name: "v2 PROXY UNIX stream",
    bytes: v2(0x21, 0x31, [...unixField("/run/client.sock"), ...unixField("")]),
    expect: {
      length: 232,
      source: { transport: "unix", path: "/run/client.sock" },
      destination: { transport: "unix", path: "" },
    },
  },
  {
    name: "v2 LOCAL (a health check): no address, the family ignored",
    bytes: v2(0x20, 0xff, []),
    expect: { command: "local", length: 16, source: undefined },
  },
  {
    name: "v2 LOCAL skips an address block it was given",
    bytes: v2(0x20, 0x11, TCP4_BODY),
    expect: { command: "local", length: 28, source: undefined, tlvs: [] },
  },
  {
    name: "v2 PROXY UNSPEC: the real endpoints",
    bytes: v2(0x21, 0x00, [1, 2, 3]),
    expect: { command: "proxy", length: 19, source: undefined },
  },
  {
    name: "v2 PROXY UDP over IPv4 falls back to UNSPEC",
    bytes: v2(0x21, 0x12, TCP4_BODY),
    expect: { length: 28, source: undefined, destination: undefined },
  },
  {
    name: "v2 with TLVs: ALPN and NOOP",
    bytes: v2(0x21, 0x11, [
      ...TCP4_BODY,
      ...[0x01, 0x00, 0x02, 0x68, 0x32], // PP2_TYPE_ALPN "h2"
      ...[0x04, 0x00, 0x00], // PP2_TYPE_NOOP, empty
    ]),
    expect: {
      length: 36,
      tlvs: [
        { type: 0x01, value: text("h2") },
        { type: 0x04, value: new Uint8Array(0) },
      ],
    },
  },
];

for (const { name, bytes, accept = "any", expect } of VALID) {
  Deno.test(`parseProxyHeader() reads ${name}`, () => {
    const header = parseProxyHeader(bytes, accept);
    assert.ok(header);
    for (const [key, value] of Object.entries(expect)) {
      assert.deepEqual(header[key as keyof ProxyHeader], value, key);
    }
  });
}

Deno.test("parseProxyHeader() asks for more bytes at every split of a valid header", () => {
  for (const { name, bytes, accept = "any" } of VALID) {
    const length = parseProxyHeader(bytes, accept)!.length;
    for (let cut = 0; cut < length; cut++) {
      assert.equal(
        parseProxyHeader(bytes.subarray(0, cut), accept),
        null,
        `${name}, ${cut} bytes`,
      );
    }
  }
});

interface Invalid {
  name: string;
  bytes: Uint8Array;
  accept?: ProxyVersions;
  code: ProxyHeaderErrorCode;
}

const INVALID: Invalid[] = [
  {
    name: "an HTTP request",
    bytes: text("GET / HTTP/1.1\r\n"),
    code: "bad-signature",
  },
  {
    name: "a TLS ClientHello",
    bytes: Uint8Array.of(0x16, 0x03, 0x01),
    code: "bad-signature",
  },
  {
    name: "lower-case proxy",
    bytes: text("proxy TCP4"),
    code: "bad-signature",
  },
  {
    name: "PROXY without its space",
    bytes: text("PROXYTCP4"),
    code: "bad-signature",
  },
  {
    name: "a v2 signature broken at its 8th byte",
    bytes: Uint8Array.of(...SIG.slice(0, 7), 0x00),
    code: "bad-signature",
  },
  {
    name: "CRLF CRLF then an HTTP request",
    bytes: text("\r\n\r\nGET / HTTP/1.1"),
    code: "bad-signature",
  },
  {
    name: "v1 on a v2-only listener",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n"),
    accept: "v2",
    code: "bad-version",
  },
  {
    name: "v2 on a v1-only listener",
    bytes: v2(0x21, 0x11, TCP4_BODY),
    accept: "v1",
    code: "bad-version",
  },
  {
    name: "v2 version nibble 1",
    bytes: v2(0x11, 0x11, TCP4_BODY),
    code: "bad-version",
  },
  {
    name: "v2 version nibble 3",
    bytes: v2(0x31, 0x11, TCP4_BODY),
    code: "bad-version",
  },
  {
    name: "v2 command 2",
    bytes: v2(0x22, 0x11, TCP4_BODY),
    code: "bad-command",
  },
  {
    name: "v2 command 15",
    bytes: v2(0x2f, 0x11, TCP4_BODY),
    code: "bad-command",
  },
  { name: "v2 family 4", bytes: v2(0x21, 0x41, TCP4_BODY), code: "bad-family" },
  {
    name: "v2 transport 3",
    bytes: v2(0x21, 0x13, TCP4_BODY),
    code: "bad-family",
  },
  {
    name: "v2 family with no transport",
    bytes: v2(0x21, 0x10, TCP4_BODY),
    code: "bad-family",
  },
  {
    name: "v2 IPv4 with 11 address bytes",
    bytes: v2(0x21, 0x11, TCP4_BODY.slice(0, 11)),
    code: "bad-length",
  },
  {
    name: "v2 IPv6 with the length of IPv4",
    bytes: v2(0x21, 0x21, TCP4_BODY),
    code: "bad-length",
  },
  {
    name: "v2 UNIX with 215 address bytes",
    bytes: v2(0x21, 0x31, new Array(215).fill(0)),
    code: "bad-length",
  },
  {
    name: "v2 longer than the limit",
    bytes: v2(0x21, 0x11, [], MAX_V2_HEADER_BYTES - 15),
    code: "header-too-long",
  },
  {
    name: "v2 TLV cut in its length",
    bytes: v2(0x21, 0x11, [...TCP4_BODY, 0x01, 0x00]),
    code: "bad-tlv",
  },
  {
    name: "v2 TLV longer than the header",
    bytes: v2(0x21, 0x11, [...TCP4_BODY, 0x01, 0x00, 0x05, 0x68, 0x32]),
    code: "bad-tlv",
  },
  {
    name: "v1 over 107 bytes without CRLF",
    bytes: text(`PROXY UNKNOWN ${"x".repeat(100)}`),
    code: "line-too-long",
  },
  {
    name: "v1 with the CRLF at byte 108",
    bytes: text(`PROXY UNKNOWN ${"x".repeat(92)}\r\n`),
    code: "line-too-long",
  },
  {
    name: "v1 protocol UDP4",
    bytes: text("PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n"),
    code: "bad-family",
  },
  {
    name: "v1 protocol tcp4",
    bytes: text("PROXY tcp4 1.2.3.4 5.6.7.8 1 2\r\n"),
    code: "bad-family",
  },
  { name: "v1 empty protocol", bytes: text("PROXY \r\n"), code: "bad-family" },
  {
    name: "v1 ended by LF alone",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n"),
    code: "bad-line",
  },
  {
    name: "v1 with a lone CR",
    bytes: text("PROXY TCP4 1.2.3.4\r5.6.7.8 1 2\r\n"),
    code: "bad-line",
  },
  {
    name: "v1 missing the ports",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8\r\n"),
    code: "bad-line",
  },
  {
    name: "v1 with a sixth field",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n"),
    code: "bad-line",
  },
  {
    name: "v1 with two spaces",
    bytes: text("PROXY TCP4  1.2.3.4 5.6.7.8 1 2\r\n"),
    code: "bad-line",
  },
  {
    name: "v1 with a trailing space",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n"),
    code: "bad-line",
  },
  {
    name: "v1 IPv4 octet 256",
    bytes: text("PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 IPv4 with a leading zero",
    bytes: text("PROXY TCP4 1.2.3.04 5.6.7.8 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 IPv4 with three parts",
    bytes: text("PROXY TCP4 1.2.3 5.6.7.8 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 TCP4 with an IPv6 address",
    bytes: text("PROXY TCP4 ::1 5.6.7.8 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 TCP6 with an IPv4 address",
    bytes: text("PROXY TCP6 1.2.3.4 ::1 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 IPv6 with two ::",
    bytes: text("PROXY TCP6 1::2::3 ::1 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 IPv6 with nine groups",
    bytes: text("PROXY TCP6 1:2:3:4:5:6:7:8:9 ::1 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 IPv6 group of five digits",
    bytes: text("PROXY TCP6 12345::1 ::1 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 host name",
    bytes: text("PROXY TCP4 localhost 5.6.7.8 1 2\r\n"),
    code: "bad-address",
  },
  {
    name: "v1 port not a number",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 http 2\r\n"),
    code: "bad-port",
  },
  {
    name: "v1 port 65536",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n"),
    code: "bad-port",
  },
  {
    name: "v1 port with a leading zero",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 1 080\r\n"),
    code: "bad-port",
  },
  {
    name: "v1 negative port",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n"),
    code: "bad-port",
  },
  {
    name: "v1 port with a sign",
    bytes: text("PROXY TCP4 1.2.3.4 5.6.7.8 +1 2\r\n"),
    code: "bad-port",
  },
];

for (const { name, bytes, accept = "any", code } of INVALID) {
  Deno.test(`parseProxyHeader() refuses ${name} with ${code}`, () => {
    assert.throws(
      () => parseProxyHeader(bytes, accept),
      (e) =>
        e instanceof ProxyHeaderError && e instanceof SyntaxError &&
        e.code === code,
    );
  });
}

Deno.test("parseProxyHeader() refuses a wrong first byte at once, before more bytes come", () => {
  assert.throws(
    () => parseProxyHeader(text("G"), "any"),
    (e) => e instanceof ProxyHeaderError && e.code === "bad-signature",
  );
});

Deno.test("parseProxyHeader() copies TLV values out of the buffer", () => {
  const bytes = v2(0x21, 0x11, [...TCP4_BODY, 0x02, 0x00, 0x01, 0x61]);
  const header = parseProxyHeader(bytes, "any")!;
  bytes.fill(0);
  assert.deepEqual(header.tlvs[0]!.value, text("a"));
});

Deno.test("formatAddress() writes IPv6 as RFC 5952 section 4 says", () => {
  const cases: [number[], string][] = [
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "::"],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], "::1"],
    // One zero group is not compressed (4.2.2).
    [
      [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
      "2001:db8:0:1:1:1:1:1",
    ],
    // The longest run wins; the first of equal runs (4.2.3).
    [[0x20, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1], "2001:0:0:1::1"],
    [
      [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1],
      "2001:db8::1:0:0:1",
    ],
    [
      [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0xab, 0xcd, 0, 0, 0, 0, 0, 0],
      "fe80::abcd:0:0:0",
    ],
    [
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1],
      "::ffff:10.0.0.1",
    ],
  ];
  for (const [bytes, expected] of cases) {
    assert.equal(formatAddress(Uint8Array.from(bytes)), expected);
  }
});
