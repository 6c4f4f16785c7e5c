/**
 * Request fields the static handler and router read: `Range`, `If-Range`
 * and the conditional fields, `Accept` and `Accept-Encoding`, and route
 * patterns and request paths.
 *
 * @module
 */
import fc from "fast-check";
import { AcceptEncoding } from "../../httpd/accept_encoding.ts";
import { HttpHeaders } from "../../httpd/headers.ts";
import {
  MalformedPathError,
  parsePattern,
  splitDecoded,
} from "../../httpd/internal/router/path.ts";
import {
  evaluatePreconditions,
  ifRangeMatches,
  Precondition,
} from "../../httpd/internal/static/conditional.ts";
import { parseHttpDate } from "../../httpd/internal/static/http_date.ts";
import { chooseVariant } from "../../httpd/internal/static/negotiate.ts";
import type { Asset } from "../../httpd/internal/static/asset.ts";
import { prefersJson } from "../../httpd/internal/static/prefers_json.ts";
import {
  MAX_RANGE_PARTS,
  parseRange,
} from "../../httpd/internal/static/range.ts";
import { negotiate, parseAccept } from "../../metrics/internal/accept.ts";
import { expect, type Target, typed } from "../harness.ts";
import { EXTREME_NUMBERS, mutatedText } from "../mutate.ts";

const anyText = fc.string({ unit: "binary", maxLength: 30 });
const number = fc.oneof(
  fc.nat({ max: 2000 }).map(String),
  fc.constantFrom(...EXTREME_NUMBERS),
);

const rangeSpec = fc.oneof(
  fc.tuple(number, number).map(([a, b]) => `${a}-${b}`),
  number.map((a) => `${a}-`),
  number.map((b) => `-${b}`),
  fc.constantFrom("-", "", " 0 - 1 ", "1-0", "0-0", "--1", "1--", "a-b"),
);

/** `parseRange` against the RFC 9110 section 14.1.2 reading of each spec. */
export const range: Target<{ value: string; size: number }> = {
  name: "range",
  entry: "httpd/internal/static/range.ts parseRange",
  ciRuns: 30_000,
  arbitrary() {
    return fc.record({
      value: fc.oneof(
        {
          weight: 6,
          arbitrary: fc.tuple(
            fc.constantFrom("bytes=", "Bytes=", "bytes =", "items=", "bytes"),
            fc.array(rangeSpec, { minLength: 1, maxLength: 20 }),
            fc.constantFrom(",", ", ", " ,"),
          ).map(([u, specs, sep]) => u + specs.join(sep)),
        },
        {
          weight: 1,
          arbitrary: mutatedText([
            "bytes=0-99,-100",
            "bytes=500-",
            "bytes=0-0,-1",
          ]),
        },
        { weight: 1, arbitrary: anyText },
      ),
      size: fc.oneof(
        fc.constantFrom(0, 1, 100, 1000, 2 ** 40),
        fc.nat({ max: 5000 }),
      ),
    });
  },
  check({ value, size }) {
    const r = parseRange(value, size);
    if (r === null || r === "unsatisfiable") return;
    expect(
      r.length >= 1 && r.length <= MAX_RANGE_PARTS,
      () => `${r.length} ranges`,
    );
    let previous = -1;
    for (const { start, end } of r) {
      expect(
        Number.isSafeInteger(start) && Number.isSafeInteger(end) &&
          0 <= start && start <= end && end < size,
        () => `range ${start}-${end} of ${size}`,
      );
      expect(start > previous, () => "ranges overlap or are unsorted");
      previous = end;
    }
    // Each satisfiable spec's bytes are inside the answer.
    const specs = value.slice(value.indexOf("=") + 1).split(",").map((s) =>
      s.trim()
    ).filter((s) => s !== "");
    for (const spec of specs) {
      const m = /^(\d*)\s*-\s*(\d*)$/.exec(spec);
      if (!m) continue;
      let first: number;
      let last: number;
      if (m[1] === "") {
        const n = Number(m[2]);
        if (!(n > 0)) continue;
        first = Math.max(0, size - n);
        last = size - 1;
      } else {
        first = Number(m[1]);
        last = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
        if (first >= size) continue;
      }
      expect(
        r.some((x) => x.start <= first && last <= x.end),
        () =>
          `spec ${spec} (${first}-${last}) not covered by ${JSON.stringify(r)}`,
      );
    }
  },
};

const etag = fc.oneof(
  fc.stringMatching(/^[\x21\x23-\x7e]{0,8}$/).map((s) => `"${s}"`),
  fc.stringMatching(/^[\x21\x23-\x7e]{0,8}$/).map((s) => `W/"${s}"`),
);
const date = fc.date({
  min: new Date(0),
  max: new Date("2100-01-01T00:00:00Z"),
  noInvalidDate: true,
});

function httpDates(d: Date): string[] {
  const imf = d.toUTCString();
  const [wd, day, mon, year, time] = imf.split(" ");
  const long = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
  ][d.getUTCDay()]!;
  const rfc850 = `${long}, ${day}-${mon}-${year!.slice(-2)} ${time} GMT`;
  const asctime = `${wd!.slice(0, 3)} ${mon} ${
    String(d.getUTCDate()).padStart(2, " ")
  } ${time} ${year}`;
  return [imf, rfc850, asctime];
}

interface ConditionalInput {
  fields: Record<string, string>;
  etag: string;
  lastModified: Date;
  date: Date;
}

/** `evaluatePreconditions`, `ifRangeMatches` and the HTTP-date forms. */
export const conditional: Target<ConditionalInput> = {
  name: "conditional",
  entry:
    "httpd/internal/static/conditional.ts evaluatePreconditions, ifRangeMatches",
  ciRuns: 30_000,
  arbitrary() {
    const fieldValue = fc.oneof(
      etag,
      fc.array(etag, { maxLength: 3 }).map((a) => a.join(", ")),
      fc.constantFrom("*", "", " * ", '"a", *', 'W/"', '"unterminated'),
      date.map((d) => httpDates(d)[0]!),
      mutatedText([
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
      ]),
      anyText,
    );
    return fc.record({
      fields: fc.dictionary(
        fc.constantFrom(
          "if-match",
          "if-none-match",
          "if-modified-since",
          "if-unmodified-since",
          "if-range",
        ),
        fieldValue,
        { maxKeys: 5 },
      ),
      etag,
      lastModified: date,
      date,
    });
  },
  check(input) {
    // Real fields, as a request carries them; a value no request could
    // carry (refused by `append`) is left out.
    const headers = new HttpHeaders();
    for (const [name, value] of Object.entries(input.fields)) {
      try {
        headers.append(name, value);
      } catch {
        // Not a field value.
      }
    }
    const seconds = Math.floor(input.lastModified.getTime() / 1000);
    const result = evaluatePreconditions(headers, input.etag, seconds);
    expect(
      Object.values(Precondition).includes(result),
      () => `result ${result}`,
    );
    const inm = input.fields["if-none-match"];
    if (
      input.fields["if-match"] === undefined &&
      input.fields["if-unmodified-since"] === undefined && inm !== undefined
    ) {
      // RFC 9110 section 13.1.2: "*" or the tag itself (weak comparison) is a 304.
      const own = inm.trim() === input.etag || inm.trim() === "*";
      if (own) {
        expect(
          result === Precondition.NotModified,
          () => `If-None-Match ${inm} of ${input.etag}: ${result}`,
        );
      }
    }
    const ifRange = input.fields["if-range"];
    if (ifRange !== undefined) {
      const matches = ifRangeMatches(ifRange, input.etag, seconds);
      if (matches && ifRange.trim().startsWith('"')) {
        expect(
          !input.etag.startsWith("W/"),
          () => "a weak tag matched If-Range",
        );
      }
    }
    // The three HTTP-date forms of one instant read the same.
    const t = Math.floor(input.date.getTime() / 1000);
    const forms = httpDates(input.date);
    const values = forms.map((f) => parseHttpDate(f));
    // RFC 850's two-digit year is read within 50 years of now.
    const now = new Date().getUTCFullYear();
    const year = input.date.getUTCFullYear();
    const rfc850Ok = year > now - 50 && year <= now + 50;
    expect(
      values[0] === t,
      () => `IMF-fixdate ${forms[0]} read as ${values[0]}, expected ${t}`,
    );
    expect(
      values[2] === t,
      () => `asctime ${forms[2]} read as ${values[2]}, expected ${t}`,
    );
    if (rfc850Ok) {
      expect(
        values[1] === t,
        () => `rfc850 ${forms[1]} read as ${values[1]}, expected ${t}`,
      );
    }
    expect(
      ifRangeMatches(forms[0]!, input.etag, t),
      () => "If-Range with Last-Modified's date does not match",
    );
  },
};

const codings = fc.constantFrom(
  "gzip",
  "br",
  "zstd",
  "deflate",
  "identity",
  "*",
  "x-gzip",
  "GZIP",
  "compress",
  "",
);
const qvalue = fc.oneof(
  fc.constantFrom(
    "0",
    "1",
    "0.5",
    "0.001",
    "1.000",
    "1.0001",
    "0.0000",
    "-1",
    "2",
    "",
    "abc",
    ".5",
    "0.",
    "1e-3",
    "NaN",
  ),
  fc.double({ min: 0, max: 1, noNaN: true }).map((q) => q.toFixed(3)),
);
const acceptEncodingValue = fc.oneof(
  fc.array(
    fc.tuple(
      codings,
      fc.option(qvalue),
      fc.constantFrom(";q=", "; q=", ";Q=", " ; q = "),
    ),
    { maxLength: 5 },
  ).map((members) =>
    members.map(([c, q, sep]) => q === null ? c : `${c}${sep}${q}`).join(", ")
  ),
  mutatedText([
    "gzip;q=0.5, br",
    "*;q=0, identity",
    "br;q=1.0, gzip;q=0.8, *;q=0.1",
  ]),
  anyText,
);
const mediaRange = fc.constantFrom(
  "application/json",
  "text/html",
  "text/*",
  "*/*",
  "application/*",
  "application/openmetrics-text",
  "text/plain;version=0.0.4",
  "application/json;q=0",
  "text/html;level=1",
);
const acceptValue = fc.oneof(
  fc.array(fc.tuple(mediaRange, fc.option(qvalue)), { maxLength: 5 }).map((
    ms,
  ) => ms.map(([m, q]) => q === null ? m : `${m};q=${q}`).join(", ")),
  mutatedText([
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "application/openmetrics-text; version=1.0.0; charset=utf-8",
  ]),
  anyText,
);

const ASSET = {
  identity: { coding: "identity" },
  sidecars: [{ coding: "br" }, { coding: "gzip" }],
  codings: ["br", "gzip"],
} as unknown as Asset;

/** `AcceptEncoding`, `chooseVariant`, `prefersJson` and the metrics `Accept`. */
export const accept: Target<
  { encoding: string; accept: string; available: string[] }
> = {
  name: "accept",
  entry:
    "httpd/accept_encoding.ts AcceptEncoding, internal/static/negotiate.ts, prefers_json.ts, metrics/internal/accept.ts",
  ciRuns: 30_000,
  arbitrary() {
    return fc.record({
      encoding: acceptEncodingValue,
      accept: acceptValue,
      available: fc.uniqueArray(
        fc.constantFrom("br", "gzip", "zstd", "identity", "deflate"),
        { maxLength: 4 },
      ),
    });
  },
  check({ encoding, accept, available }) {
    const entries = AcceptEncoding.parse(encoding);
    for (const e of entries) {
      expect(
        e.coding === e.coding.toLowerCase() && e.coding !== "",
        () => `coding ${e.coding}`,
      );
      expect(e.qvalue >= 0 && e.qvalue <= 1, () => `qvalue ${e.qvalue}`);
    }
    const chosen = AcceptEncoding.select(encoding, available);
    if (chosen !== undefined) {
      expect(available.includes(chosen), () => `chose ${chosen} not offered`);
      expect(
        AcceptEncoding.accepts(encoding, chosen),
        () => `chose ${chosen}, which is not acceptable`,
      );
      // Nothing offered weighs more than the choice.
      const weight = (c: string) => {
        const e = entries.find((x) =>
          x.coding === c || (x.coding === "x-gzip" && c === "gzip")
        );
        return e?.qvalue;
      };
      for (const other of available) {
        const w = weight(other);
        const wc = weight(chosen);
        if (w !== undefined && wc !== undefined) {
          expect(
            w <= wc,
            () => `chose ${chosen} (q=${wc}) over ${other} (q=${w})`,
          );
        }
      }
    } else {
      for (const c of available) {
        expect(
          !AcceptEncoding.accepts(encoding, c),
          () => `none chosen, yet ${c} is acceptable`,
        );
      }
    }
    const variant = chooseVariant(ASSET, encoding) as unknown as {
      coding: string;
    };
    expect(
      ["br", "gzip", "identity"].includes(variant.coding),
      () => `variant ${variant.coding}`,
    );
    if (variant.coding !== "identity") {
      expect(
        AcceptEncoding.accepts(encoding, variant.coding),
        () => `sent ${variant.coding}, not acceptable`,
      );
    }
    typed(() => prefersJson(accept), []);
    typed(() => parseAccept(accept), []);
    const format = typed(() => negotiate(accept), []).value;
    expect(
      format === undefined || ["text", "openmetrics", "json"].includes(format),
      () => `format ${format}`,
    );
  },
};

const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,8}$/),
  fc.string({ maxLength: 8 }),
  fc.constantFrom(".", "..", "%", "%2F", "%zz", "%C3", "%C3%A9", "a%20b", ""),
);
const patternSegment = fc.oneof(
  segment,
  fc.stringMatching(/^[a-z]{1,5}$/).map((n) => `:${n}`),
  fc.stringMatching(/^[a-z]{1,5}$/).map((n) => `:${n}?`),
  fc.constantFrom(
    "*",
    ":a{\\d+}",
    ":a.:b",
    "{x}",
    ":",
    ":1",
    "a:b",
    "::a",
    ":a(",
    "**",
    "*x",
  ),
);

/** `parsePattern` and `splitDecoded`. */
export const routePath: Target<
  { pattern: string; segments: string[]; raw: string }
> = {
  name: "route-path",
  entry: "httpd/internal/router/path.ts parsePattern, splitDecoded",
  ciRuns: 30_000,
  arbitrary() {
    return fc.record({
      pattern: fc.oneof(
        fc.array(patternSegment, { maxLength: 5 }).map((s) =>
          "/" + s.join("/")
        ),
        anyText,
      ),
      segments: fc.array(fc.string({ unit: "binary", maxLength: 8 }), {
        maxLength: 5,
      }),
      raw: fc.oneof(
        fc.array(segment, { maxLength: 5 }).map((s) => "/" + s.join("/")),
        anyText.map((s) => "/" + s),
      ),
    });
  },
  check({ pattern, segments, raw }) {
    const p = typed(() => parsePattern(pattern), [TypeError]);
    if (p.value) {
      const parsed = p.value;
      expect(
        parsed.pattern.startsWith("/"),
        () => `normalized ${parsed.pattern}`,
      );
      const again = typed(() => parsePattern(parsed.pattern), [TypeError]);
      expect(
        again.value !== undefined,
        () => `normalized pattern ${parsed.pattern} refused: ${again.error}`,
      );
      expect(
        JSON.stringify(again.value!.names) === JSON.stringify(parsed.names) &&
          again.value!.pattern === parsed.pattern,
        () => `normalizing twice differs: ${again.value!.pattern}`,
      );
    }
    // Encoded segments decode back, "/" inside a segment included.
    const nonEmpty = segments.filter((s) => s !== "");
    if (
      nonEmpty.length > 0 && nonEmpty.every((s) => !/[\ud800-\udfff]/.test(s))
    ) {
      const path = "/" + nonEmpty.map(encodeURIComponent).join("/");
      const back = typed(() => splitDecoded(path), [MalformedPathError]);
      expect(
        JSON.stringify(back.value) === JSON.stringify(nonEmpty),
        () => `${path} split as ${JSON.stringify(back.value)}`,
      );
    }
    typed(() => splitDecoded(raw), [MalformedPathError]);
  },
};
