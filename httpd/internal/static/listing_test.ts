import assert from "node:assert/strict";
import {
  escapeHtml,
  formatSize,
  type Listing,
  listingHtml,
  listingJson,
  sortEntries,
} from "./listing.ts";

const TIME = Date.UTC(2026, 0, 2, 3, 4, 5);

Deno.test("sortEntries() puts directories first, then names with numbers by value", () => {
  const names = sortEntries([
    { name: "b10.txt", directory: false, size: 1, mtimeMs: TIME },
    { name: "b2.txt", directory: false, size: 1, mtimeMs: TIME },
    { name: "zeta", directory: true, size: 0, mtimeMs: TIME },
    { name: "Alpha", directory: false, size: 1, mtimeMs: TIME },
    { name: "alpha", directory: true, size: 0, mtimeMs: TIME },
  ]).map((e) => e.name);
  assert.deepEqual(names, ["alpha", "zeta", "Alpha", "b2.txt", "b10.txt"]);
});

Deno.test("formatSize() writes sizes for people", () => {
  const cases: [number, string][] = [
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [10 * 1024 + 100, "10 KiB"],
    [5 * 1024 * 1024, "5 MiB"],
    [3.25 * 1024 ** 3, "3.3 GiB"],
  ];
  for (const [bytes, text] of cases) assert.equal(formatSize(bytes), text);
});

Deno.test("listingHtml() escapes names and encodes their links", () => {
  const listing: Listing = {
    entries: [
      { name: "<b>x</b>", directory: true, size: 0, mtimeMs: TIME },
      { name: `a"b' c&d.txt`, directory: false, size: 2048, mtimeMs: TIME },
      { name: "javascript:alert(1)", directory: false, size: 1, mtimeMs: NaN },
    ],
    truncated: false,
  };
  const html = listingHtml("/<dir>/", listing);
  assert.ok(html.includes("<title>Index of /&#60;dir&#62;/</title>"));
  assert.ok(html.includes('<a href="../">../</a>'));
  assert.ok(
    html.includes(
      '<a href="%3Cb%3Ex%3C%2Fb%3E/" class="dir">&#60;b&#62;x&#60;/b&#62;/</a>',
    ),
  );
  assert.ok(html.includes('href="a%22b&#39;%20c%26d.txt"'));
  assert.ok(html.includes(">a&#34;b&#39; c&#38;d.txt<"));
  assert.ok(html.includes('href="javascript%3Aalert(1)"'));
  assert.ok(html.includes('title="2048 bytes">2 KiB<'));
  assert.ok(
    html.includes(
      '<time datetime="2026-01-02T03:04:05.000Z">2026-01-02 03:04</time>',
    ),
  );
  assert.ok(!html.includes("<b>"));
});

Deno.test("listingHtml() has no parent link at the root and says when it is truncated", () => {
  const html = listingHtml("/", { entries: [], truncated: true });
  assert.ok(!html.includes('href="../"'));
  assert.match(html, /Only the first 10000 entries are listed/);
});

Deno.test("listingJson() writes names, types, sizes and ISO times", () => {
  const json = JSON.parse(listingJson("/d/", {
    entries: [
      { name: "sub", directory: true, size: 0, mtimeMs: TIME },
      { name: "a.txt", directory: false, size: 12, mtimeMs: NaN },
    ],
    truncated: false,
  }));
  assert.deepEqual(json, {
    path: "/d/",
    entries: [
      { name: "sub", type: "directory", mtime: "2026-01-02T03:04:05.000Z" },
      { name: "a.txt", type: "file", size: 12, mtime: null },
    ],
    truncated: false,
  });
});

Deno.test("escapeHtml() escapes the five special characters", () => {
  assert.equal(
    escapeHtml(`<a href="x">'&'</a>`),
    "&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;",
  );
});
