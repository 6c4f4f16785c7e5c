import assert from "node:assert/strict";
import {
  clientAddressResolver,
  type ForwardedFields,
  parseAddress,
} from "./client_address.ts";

const fields = (
  remoteAddress: string | undefined,
  forwardedFor?: string,
  realIp?: string,
): ForwardedFields => ({ remoteAddress, forwardedFor, realIp });

Deno.test("clientAddressResolver() without a setting keeps the first hop, then X-Real-IP, then the peer", () => {
  const resolve = clientAddressResolver(undefined);
  assert.equal(resolve(fields("10.0.0.1", " 6.6.6.6 , 1.2.3.4")), "6.6.6.6");
  assert.equal(resolve(fields("10.0.0.1", undefined, "7.7.7.7")), "7.7.7.7");
  assert.equal(resolve(fields("10.0.0.1", ", 1.2.3.4")), "10.0.0.1");
  assert.equal(resolve(fields(undefined)), undefined);
});

Deno.test("clientAddressResolver() with a hop count reads that many hops from the right", () => {
  const xff = "6.6.6.6, 203.0.113.7, 10.0.0.1";
  const cases: [number, string | undefined, string][] = [
    [0, xff, "10.0.0.9"],
    [1, xff, "10.0.0.1"],
    [2, xff, "203.0.113.7"],
    [3, xff, "6.6.6.6"],
    [9, xff, "6.6.6.6"],
    [1, undefined, "10.0.0.9"],
  ];
  for (const [hops, header, expected] of cases) {
    const resolve = clientAddressResolver(hops);
    assert.equal(resolve(fields("10.0.0.9", header)), expected, `${hops}`);
  }
  // No X-Forwarded-For: X-Real-IP from the proxy, never with 0 proxies.
  assert.equal(
    clientAddressResolver(1)(fields("10.0.0.9", undefined, "7.7.7.7")),
    "7.7.7.7",
  );
  assert.equal(
    clientAddressResolver(0)(fields("10.0.0.9", "1.1.1.1", "7.7.7.7")),
    "10.0.0.9",
  );
});

Deno.test("clientAddressResolver() with ranges skips trusted proxies from the right", () => {
  const resolve = clientAddressResolver(["10.0.0.0/8", "2001:db8::/32", "::1"]);
  // A forged first hop is ignored.
  assert.equal(
    resolve(fields("10.1.2.3", "6.6.6.6, 203.0.113.7, 10.0.0.5")),
    "203.0.113.7",
  );
  // An untrusted peer is the client, whatever it claims.
  assert.equal(resolve(fields("198.51.100.1", "6.6.6.6")), "198.51.100.1");
  assert.equal(
    resolve(fields("198.51.100.1", undefined, "6.6.6.6")),
    "198.51.100.1",
  );
  // IPv6 peers, IPv4-mapped peers, ports and brackets.
  assert.equal(
    resolve(fields("::1", "[2001:db8::7]:443, 203.0.113.8")),
    "203.0.113.8",
  );
  assert.equal(
    resolve(fields("::ffff:10.9.9.9", "203.0.113.9:5000")),
    "203.0.113.9:5000",
  );
  assert.equal(resolve(fields("2001:db8:1::2", "2001:db9::1")), "2001:db9::1");
  // Everything trusted: the leftmost hop.
  assert.equal(resolve(fields("10.0.0.1", "10.0.0.2, 10.0.0.3")), "10.0.0.2");
  // A trusted peer without X-Forwarded-For: X-Real-IP, else the peer.
  assert.equal(resolve(fields("10.0.0.1", undefined, "7.7.7.7")), "7.7.7.7");
  assert.equal(resolve(fields("10.0.0.1")), "10.0.0.1");
  // A hop that is no address stops the walk: it is what the client said.
  assert.equal(resolve(fields("10.0.0.1", "1.1.1.1, garbage")), "garbage");
});

Deno.test("clientAddressResolver() rejects bad settings, naming them", () => {
  for (
    const bad of [
      "10.0.0.0/33",
      "::/129",
      "300.1.1.1",
      "example.com",
      "1.2.3.4/x",
      "",
    ]
  ) {
    assert.throws(
      () => clientAddressResolver([bad]),
      (error) =>
        error instanceof TypeError && error.message.includes(`"${bad}"`),
    );
  }
  for (const bad of [-1, 1.5, NaN]) {
    assert.throws(() => clientAddressResolver(bad), TypeError);
  }
});

Deno.test("parseAddress() reads IPv4, IPv6, compressed forms, zones and ports", () => {
  const hex = (text: string) =>
    [...parseAddress(text) ?? []].map((b) => b.toString(16).padStart(2, "0"))
      .join("");
  assert.equal(hex("1.2.3.4"), "00000000000000000000ffff01020304");
  assert.equal(hex("1.2.3.4:80"), hex("1.2.3.4"));
  assert.equal(hex("::ffff:1.2.3.4"), hex("1.2.3.4"));
  assert.equal(hex("::1"), "00000000000000000000000000000001");
  assert.equal(hex("[::1]:8080"), hex("::1"));
  assert.equal(hex("fe80::1%eth0"), "fe800000000000000000000000000001");
  assert.equal(hex("2001:db8::"), "20010db8000000000000000000000000");
  assert.equal(hex("1:2:3:4:5:6:7:8"), "00010002000300040005000600070008");
  for (const bad of ["1.2.3", "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::", "x"]) {
    assert.equal(parseAddress(bad), undefined, bad);
  }
});

Deno.test("parseAddress() refuses more than eight groups around a :: (no RangeError)", () => {
  assert.equal(parseAddress("1:2:3:4:5:6:7:8:9::1"), undefined);
  // A client's X-Forwarded-For hop: no trusted range, so it is the client.
  const resolve = clientAddressResolver(["10.0.0.0/8"]);
  assert.equal(
    resolve(fields("10.0.0.1", "203.0.113.7, 1:2:3:4:5:6:7:8:9::1")),
    "1:2:3:4:5:6:7:8:9::1",
  );
});
