import assert from "node:assert/strict";
import { HttpError } from "../../errors.ts";
import { negotiateDeflate, parseExtensions } from "./permessage_deflate.ts";

Deno.test("parseExtensions reads tokens, parameters and quoted values", () => {
  assert.deepEqual(
    parseExtensions(
      'permessage-deflate; client_max_window_bits; server_max_window_bits="10", foo;bar=baz,, x',
    ),
    [
      {
        name: "permessage-deflate",
        params: [["client_max_window_bits", undefined], [
          "server_max_window_bits",
          "10",
        ]],
      },
      { name: "foo", params: [["bar", "baz"]] },
      { name: "x", params: [] },
    ],
  );
  for (
    const bad of [
      "permessage-deflate;",
      "a b",
      'a; b="c d"',
      'a; b="',
      "a; =1",
      "a;b=?",
    ]
  ) {
    assert.throws(() => parseExtensions(bad), SyntaxError, bad);
  }
});

Deno.test("negotiateDeflate answers each offer as RFC 7692 section 7.1 says", () => {
  const cases: [
    string,
    string | undefined,
    Record<string, unknown> | undefined,
  ][] = [
    // Chrome and Firefox.
    [
      "permessage-deflate; client_max_window_bits",
      "permessage-deflate",
      {
        serverNoContextTakeover: false,
        clientNoContextTakeover: false,
        serverMaxWindowBits: 15,
      },
    ],
    [
      "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
      "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
      {
        serverNoContextTakeover: true,
        clientNoContextTakeover: true,
        serverMaxWindowBits: 15,
      },
    ],
    [
      "permessage-deflate; server_max_window_bits=9",
      "permessage-deflate; server_max_window_bits=9",
      {
        serverNoContextTakeover: false,
        clientNoContextTakeover: false,
        serverMaxWindowBits: 9,
      },
    ],
    [
      'permessage-deflate; server_max_window_bits="12"; client_max_window_bits=10',
      "permessage-deflate; server_max_window_bits=12",
      {
        serverNoContextTakeover: false,
        clientNoContextTakeover: false,
        serverMaxWindowBits: 12,
      },
    ],
    // Declined offers, then an acceptable fallback.
    [
      "permessage-deflate; server_max_window_bits=8, permessage-deflate",
      "permessage-deflate",
      {
        serverNoContextTakeover: false,
        clientNoContextTakeover: false,
        serverMaxWindowBits: 15,
      },
    ],
    ["permessage-deflate; server_max_window_bits=16", undefined, undefined],
    ["permessage-deflate; server_max_window_bits=010", undefined, undefined],
    ["permessage-deflate; server_max_window_bits", undefined, undefined],
    ["permessage-deflate; client_max_window_bits=7", undefined, undefined],
    ["permessage-deflate; server_no_context_takeover=1", undefined, undefined],
    ["permessage-deflate; unknown_param", undefined, undefined],
    [
      "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
      undefined,
      undefined,
    ],
    ["x-webkit-deflate-frame", undefined, undefined],
  ];
  for (const [offer, response, params] of cases) {
    const agreed = negotiateDeflate(offer);
    assert.equal(agreed?.response, response, offer);
    assert.deepEqual(agreed?.params, params, offer);
  }
  assert.equal(negotiateDeflate(undefined), undefined);
});

Deno.test("negotiateDeflate answers 400 to a malformed field", () => {
  assert.throws(
    () => negotiateDeflate('permessage-deflate; a="'),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
});
