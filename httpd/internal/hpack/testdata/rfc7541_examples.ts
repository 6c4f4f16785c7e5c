/**
 * The header block examples of RFC 7541 Appendix C.2-C.6, shared by the
 * decoder and encoder tests: each block with its header list and the
 * dynamic table after it.
 *
 * @module
 */

/** One header block of an example and the state after decoding it. */
export interface ExampleBlock {
  /** The block as hexadecimal text, spaces allowed. */
  hex: string;
  /** The decoded header list, flat. */
  fields: string[];
  /** The dynamic table after the block, newest entry first, flat. */
  table: string[];
  /** The dynamic table size after the block. */
  size: number;
}

/** A sequence of blocks sharing one decoder (RFC 7541 C.3-C.6). */
export interface Example {
  /** The RFC section. */
  section: string;
  /** The dynamic table size limit (SETTINGS_HEADER_TABLE_SIZE). */
  tableSize: number;
  /** Whether the example Huffman-codes its strings. */
  huffman: boolean;
  /** The blocks, in order. */
  blocks: ExampleBlock[];
}

const DATE_1 = "Mon, 21 Oct 2013 20:13:21 GMT";
const DATE_2 = "Mon, 21 Oct 2013 20:13:22 GMT";
const COOKIE = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";
const LOCATION = "https://www.example.com";

const REQUESTS = [
  {
    fields: [
      ":method",
      "GET",
      ":scheme",
      "http",
      ":path",
      "/",
      ":authority",
      "www.example.com",
    ],
    table: [":authority", "www.example.com"],
    size: 57,
  },
  {
    fields: [
      ":method",
      "GET",
      ":scheme",
      "http",
      ":path",
      "/",
      ":authority",
      "www.example.com",
      "cache-control",
      "no-cache",
    ],
    table: ["cache-control", "no-cache", ":authority", "www.example.com"],
    size: 110,
  },
  {
    fields: [
      ":method",
      "GET",
      ":scheme",
      "https",
      ":path",
      "/index.html",
      ":authority",
      "www.example.com",
      "custom-key",
      "custom-value",
    ],
    table: [
      "custom-key",
      "custom-value",
      "cache-control",
      "no-cache",
      ":authority",
      "www.example.com",
    ],
    size: 164,
  },
];

const RESPONSES = [
  {
    fields: [
      ":status",
      "302",
      "cache-control",
      "private",
      "date",
      DATE_1,
      "location",
      LOCATION,
    ],
    table: [
      "location",
      LOCATION,
      "date",
      DATE_1,
      "cache-control",
      "private",
      ":status",
      "302",
    ],
    size: 222,
  },
  {
    fields: [
      ":status",
      "307",
      "cache-control",
      "private",
      "date",
      DATE_1,
      "location",
      LOCATION,
    ],
    table: [
      ":status",
      "307",
      "location",
      LOCATION,
      "date",
      DATE_1,
      "cache-control",
      "private",
    ],
    size: 222,
  },
  {
    fields: [
      ":status",
      "200",
      "cache-control",
      "private",
      "date",
      DATE_2,
      "location",
      LOCATION,
      "content-encoding",
      "gzip",
      "set-cookie",
      COOKIE,
    ],
    table: ["set-cookie", COOKIE, "content-encoding", "gzip", "date", DATE_2],
    size: 215,
  },
];

/** The single representations of RFC 7541 C.2, each on a fresh decoder. */
export const C2_EXAMPLES: ExampleBlock[] = [
  {
    hex: "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
    fields: ["custom-key", "custom-header"],
    table: ["custom-key", "custom-header"],
    size: 55,
  },
  {
    hex: "040c 2f73 616d 706c 652f 7061 7468",
    fields: [":path", "/sample/path"],
    table: [],
    size: 0,
  },
  {
    hex: "1008 7061 7373 776f 7264 0673 6563 7265 74",
    fields: ["password", "secret"],
    table: [],
    size: 0,
  },
  { hex: "82", fields: [":method", "GET"], table: [], size: 0 },
];

/** RFC 7541 C.3 to C.6. */
export const EXAMPLES: Example[] = [
  {
    section: "C.3",
    tableSize: 4096,
    huffman: false,
    blocks: [
      "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
      "8286 84be 5808 6e6f 2d63 6163 6865",
      "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
    ].map((hex, i) => ({ hex, ...REQUESTS[i]! })),
  },
  {
    section: "C.4",
    tableSize: 4096,
    huffman: true,
    blocks: [
      "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
      "8286 84be 5886 a8eb 1064 9cbf",
      "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
    ].map((hex, i) => ({ hex, ...REQUESTS[i]! })),
  },
  {
    section: "C.5",
    tableSize: 256,
    huffman: false,
    blocks: [
      "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133" +
      "2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70" +
      "6c65 2e63 6f6d",
      "4803 3330 37c1 c0bf",
      "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d" +
      "54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049" +
      "5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e" +
      "3d31",
    ].map((hex, i) => ({ hex, ...RESPONSES[i]! })),
  },
  {
    section: "C.6",
    tableSize: 256,
    huffman: true,
    blocks: [
      "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6" +
      "2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
      "4883 640e ffc1 c0bf",
      "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab" +
      "77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f" +
      "9587 3160 65c0 03ed 4ee5 b106 3d50 07",
    ].map((hex, i) => ({ hex, ...RESPONSES[i]! })),
  },
];

/**
 * Parses hexadecimal text, ignoring whitespace.
 *
 * @param text Pairs of hexadecimal digits.
 * @returns The bytes.
 */
export function hex(text: string): Uint8Array {
  const digits = text.replace(/\s+/g, "");
  return Uint8Array.from(
    { length: digits.length / 2 },
    (_, i) => parseInt(digits.slice(2 * i, 2 * i + 2), 16),
  );
}
