import assert from "node:assert/strict";
import { isValidHost } from "./authority.ts";

const VALID: [string, string][] = [
  ["empty (RFC 9112 section 3.2)", ""],
  ["a name", "example.com"],
  ["a name and port", "example.com:8080"],
  ["a single label", "localhost"],
  ["an A-label", "xn--bcher-kva.example"],
  ["a trailing dot", "example.com."],
  ["an empty port (RFC 3986 section 3.2.3)", "example.com:"],
  ["port 0", "example.com:0"],
  ["port 65535", "example.com:65535"],
  ["a 5-digit port with leading zeros", "example.com:00080"],
  ["unreserved and sub-delims but ','", "a-b._~!$&'()*+;=c"],
  ["pct-encoded", "ex%41mple.com"],
  ["IPv4", "127.0.0.1"],
  ["IPv4 and port", "127.0.0.1:80"],
  ["an IPv4-like reg-name", "1.2.3.999"],
  ["IPv6 loopback", "[::1]"],
  ["IPv6 loopback and port", "[::1]:443"],
  ["IPv6 unspecified", "[::]"],
  ["IPv6 in full", "[2001:db8:0:0:0:0:0:1]"],
  ["IPv6 upper case", "[2001:DB8::A]"],
  ["IPv6 with a trailing ::", "[2001:db8::]"],
  ["IPv6 with IPv4", "[::ffff:192.0.2.1]"],
  ["IPv6 in full with IPv4", "[1:2:3:4:5:6:192.0.2.1]"],
  ["IPv6 with seven pieces and ::", "[1:2:3:4:5:6:7::]"],
  ["IPvFuture", "[v1.fe80::a+en1]"],
  ["IPvFuture and port", "[V7.x]:8080"],
];

const INVALID: [string, string][] = [
  ["a path", "example.com/admin"],
  ["a path after the port", "example.com:80/admin"],
  ["userinfo", "u@example.com"],
  ["userinfo with a password", "u:p@example.com"],
  ["two hosts", "a, b"],
  ["two hosts without space", "a,b"],
  ["a query", "example.com?x"],
  ["a fragment", "example.com#f"],
  ["a space", "exa mple.com"],
  ["a tab", "example.com\t"],
  ["a backslash", "example.com\\admin"],
  ["a NUL", "example.com\0"],
  ["DEL", "example.com\x7f"],
  ["obs-text", "caf\xe9.example"],
  ["a non-Latin-1 character", "\u4f8b.example"],
  ["a port with a letter", "example.com:80x"],
  ["a port over 65535", "example.com:65536"],
  ["a 6-digit port", "example.com:123456"],
  ["a 6-digit port with leading zeros", "example.com:000080"],
  ["two ports", "example.com:80:80"],
  ["a port without a host", ":80"],
  ["a lone colon", ":"],
  ["incomplete pct-encoded", "ex%4"],
  ["pct-encoded that is not hex", "ex%zzample.com"],
  ["a lone %", "%"],
  ["an unclosed IPv6 literal", "[::1"],
  ["an empty IP literal", "[]"],
  ["junk after an IP literal", "[::1]x"],
  ["a path after an IP literal", "[::1]/a"],
  ["IPv6 unbracketed", "::1"],
  ["IPv6 with a zone", "[fe80::1%25eth0]"],
  ["IPv6 with too many pieces", "[1:2:3:4:5:6:7:8:9]"],
  ["IPv6 with too few pieces", "[1:2:3:4:5:6:7]"],
  ["IPv6 with eight pieces and ::", "[1:2:3:4:5:6:7::8]"],
  ["IPv6 with two ::", "[1::2::3]"],
  ["IPv6 with :::", "[1:::2]"],
  ["IPv6 with a leading single :", "[:1::2]"],
  ["IPv6 with a trailing single :", "[1::2:]"],
  ["IPv6 with a 5-digit piece", "[12345::1]"],
  ["IPv6 with a non-hex digit", "[::g]"],
  ["IPv6 with IPv4 not last", "[::1.2.3.4:1]"],
  ["IPv6 with IPv4 octet over 255", "[::1.2.3.256]"],
  ["IPv6 with IPv4 leading zero", "[::1.2.3.04]"],
  ["IPv6 with short IPv4", "[::1.2.3]"],
  ["IPv6 with IPv4 and eight pieces", "[1:2:3:4:5:6:7:1.2.3.4]"],
  ["IPv4 alone in brackets", "[1.2.3.4]"],
  ["IPvFuture without version", "[v.x]"],
  ["IPvFuture without tail", "[v1.]"],
  ["IPvFuture without dot", "[v1x]"],
  ["IPvFuture with a comma", "[v1.a,b]"],
  ["IPvFuture with a slash", "[v1.a/b]"],
  ["a nested bracket", "[[::1]]"],
  ["a closing bracket in a reg-name", "a]"],
  ["an opening bracket inside a reg-name", "a[::1]"],
];

for (const [name, value] of VALID) {
  Deno.test(`isValidHost() accepts ${name}`, () => {
    assert.equal(isValidHost(value), true, JSON.stringify(value));
  });
}

for (const [name, value] of INVALID) {
  Deno.test(`isValidHost() refuses ${name}`, () => {
    assert.equal(isValidHost(value), false, JSON.stringify(value));
  });
}

Deno.test("isValidHost() accepts a byte after a name iff the grammar allows it", () => {
  // A reg-name byte (RFC 3986 section 3.2.2: unreserved, sub-delims but
  // ","), or ":" starting an empty port (section 3.2.3). Written apart from
  // the module's table so that each checks the other.
  const allowed = new Set(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" +
      "-._~!$&'()*+;=:",
  );
  for (let byte = 0; byte <= 0xff; byte++) {
    const c = String.fromCharCode(byte);
    assert.equal(
      isValidHost(`example.com${c}`),
      allowed.has(c),
      `byte 0x${byte.toString(16).padStart(2, "0")}`,
    );
  }
});

Deno.test("isValidHost() checks every port from 0 to 65536", () => {
  for (let port = 0; port <= 65536; port++) {
    assert.equal(isValidHost(`a:${port}`), port <= 65535, String(port));
  }
});
