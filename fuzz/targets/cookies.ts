/**
 * Cookies: `getCookies` on any `Cookie` field, `setCookie` → `getCookies`
 * round trips, and signed cookies (sign → verify, tamper → refuse).
 *
 * @module
 */
import fc from "fast-check";
import { type Cookie, getCookies, setCookie } from "../../httpd/cookies.ts";
import { HttpHeaders } from "../../httpd/headers.ts";
import {
  getSignedCookie,
  setSignedCookie,
} from "../../httpd/signed_cookies.ts";
import { expect, type Target, typed, typedAsync } from "../harness.ts";
import { mutatedText } from "../mutate.ts";

/** A message whose `Cookie` fields are exactly `fields` (no validation). */
function withCookies(fields: readonly string[]): { headers: HttpHeaders } {
  const headers = {
    getAll: (name: string) => name === "cookie" ? [...fields] : [],
  };
  return { headers: headers as unknown as HttpHeaders };
}

const tokenName = fc.oneof(
  fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,16}$/),
  fc.constantFrom(
    "__proto__",
    "constructor",
    "toString",
    "__Host-a",
    "__Secure-a",
    "hasOwnProperty",
  ),
);
const cookieValue = fc.oneof(
  fc.stringMatching(/^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]{0,20}$/),
  fc.stringMatching(/^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]{0,20}$/).map((
    v,
  ) => `"${v}"`),
);
const anyText = fc.string({ unit: "binary", maxLength: 20 });

const cookie: fc.Arbitrary<Cookie> = fc.record({
  name: fc.oneof({ weight: 8, arbitrary: tokenName }, {
    weight: 1,
    arbitrary: anyText,
  }),
  value: fc.oneof({ weight: 8, arbitrary: cookieValue }, {
    weight: 1,
    arbitrary: anyText,
  }),
  domain: fc.option(
    fc.oneof(
      fc.constantFrom("a.example", ".a.example", "a..b", "-a", "a b"),
      anyText,
    ),
    { nil: undefined },
  ),
  path: fc.option(
    fc.oneof(
      fc.constantFrom("/", "/a", "/a;b", "a"),
      anyText.map((s) => "/" + s),
    ),
    { nil: undefined },
  ),
  secure: fc.option(fc.boolean(), { nil: undefined }),
  httpOnly: fc.option(fc.boolean(), { nil: undefined }),
  sameSite: fc.option(
    fc.constantFrom("Strict", "Lax", "None", "lax") as fc.Arbitrary<"Strict">,
    { nil: undefined },
  ),
  partitioned: fc.option(fc.boolean(), { nil: undefined }),
  maxAge: fc.option(fc.oneof(fc.integer(), fc.double()), { nil: undefined }),
  expires: fc.option(fc.date(), { nil: undefined }),
}, { requiredKeys: ["name", "value"] });

const ATTRIBUTES =
  /^(Max-Age=\d+|Expires=[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} -?\d{4,6} \d\d:\d\d:\d\d GMT|Domain=[^;]+|Path=[^;]*|Secure|HttpOnly|SameSite=(Strict|Lax|None)|Partitioned)$/;

/** `getCookies` and `setCookie`. */
export const cookies: Target<{ fields: string[]; set: Cookie[] }> = {
  name: "cookies",
  entry: "httpd/cookies.ts getCookies, setCookie",
  ciRuns: 20_000,
  arbitrary() {
    const seeds = [
      'sid=abc; theme="dark"',
      'a=1;b=2;;c; =d; e=""; f="x',
      "__proto__=x; constructor=y",
      "a=b=c; a=d",
    ];
    return fc.record({
      fields: fc.array(fc.oneof(mutatedText(seeds), anyText), { maxLength: 3 }),
      set: fc.array(cookie, { maxLength: 4 }),
    });
  },
  check({ fields, set }) {
    const got = getCookies(withCookies(fields));
    expect(
      Object.getPrototypeOf(got) === Object.prototype,
      () => "prototype changed",
    );
    for (const [name, value] of Object.entries(got)) {
      expect(
        name !== "" && name === name.trim() && !name.includes(";"),
        () => `name ${JSON.stringify(name)}`,
      );
      expect(!value.includes(";"), () => `value ${JSON.stringify(value)}`);
    }
    // setCookie: typed refusals, and the pairs it writes read back.
    const res = { headers: new HttpHeaders() };
    const pairs: [string, string][] = [];
    for (const c of set) {
      const r = typed(() => setCookie(res, c), [TypeError, RangeError]);
      if (r.error) continue;
      const line = res.headers.getAll("set-cookie").at(-1)!;
      expect(
        // deno-lint-ignore no-control-regex
        !/[\x00-\x1f\x7f]/.test(line),
        () => `control character in ${JSON.stringify(line)}`,
      );
      const [pair, ...attributes] = line.split("; ");
      expect(
        pair === `${c.name}=${c.value}`,
        () => `pair ${JSON.stringify(pair)}`,
      );
      for (const a of attributes) {
        expect(
          ATTRIBUTES.test(a),
          () => `attribute ${JSON.stringify(a)} in ${JSON.stringify(line)}`,
        );
      }
      pairs.push([c.name, c.value]);
    }
    const back = getCookies(
      withCookies([pairs.map(([n, v]) => `${n}=${v}`).join("; ")]),
    );
    const expected: Record<string, string> = {};
    for (const [n, v] of pairs) {
      if (!Object.hasOwn(expected, n)) {
        Object.defineProperty(expected, n, {
          value: v.length >= 2 && v.startsWith('"') && v.endsWith('"')
            ? v.slice(1, -1)
            : v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    expect(
      JSON.stringify(Object.entries(back)) ===
        JSON.stringify(Object.entries(expected)),
      () =>
        `round trip: ${JSON.stringify(Object.entries(back))} != ${
          JSON.stringify(Object.entries(expected))
        }`,
    );
  },
};

const SECRET = "a fuzzing secret of at least thirty-two bytes";
const OTHER = "another secret, also thirty-two bytes or more";

/** `setSignedCookie` → `getSignedCookie`, and any change refused. */
export const signedCookies: Target<
  { name: string; value: string; at: number; char: string; junk: string }
> = {
  name: "signed-cookies",
  entry: "httpd/signed_cookies.ts setSignedCookie, getSignedCookie",
  ciRuns: 5_000,
  async: true,
  arbitrary() {
    return fc.record({
      name: tokenName,
      value: cookieValue.filter((v) => !v.startsWith('"')),
      at: fc.nat(),
      char: fc.constantFrom(
        ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.="
          .split(""),
      ),
      junk: fc.oneof(
        anyText,
        mutatedText(["sid=abc.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]),
      ),
    });
  },
  async check({ name, value, at, char, junk }) {
    const res = { headers: new HttpHeaders() };
    // A name whose prefix needs attributes is refused (typed), as by setCookie.
    const set = await typedAsync(
      () => setSignedCookie(res, { name, value }, SECRET),
      [TypeError, RangeError],
    );
    if (set.error) return;
    const pair = res.headers.get("set-cookie")!.split("; ")[0]!;
    const signed = pair.slice(name.length + 1);
    const read = (v: string, secrets: string | string[] = SECRET) =>
      typedAsync(
        () => getSignedCookie(withCookies([`${name}=${v}`]), name, secrets),
        [],
      );
    const good = await read(signed);
    expect(good.value === value, () => `own cookie read as ${good.value}`);
    const rotated = await read(signed, [OTHER, SECRET]);
    expect(rotated.value === value, () => "the second secret does not verify");
    const wrong = await read(signed, OTHER);
    expect(
      wrong.value === false,
      () => `verified with the wrong secret: ${wrong.value}`,
    );
    // Any change to the signed value is refused.
    const i = at % signed.length;
    const tampered = signed.slice(0, i) + char + signed.slice(i + 1);
    if (tampered !== signed) {
      const t = await read(tampered);
      expect(
        t.value === false,
        () =>
          `tampered ${JSON.stringify(tampered)} (from ${
            JSON.stringify(signed)
          }) read as ${JSON.stringify(t.value)}`,
      );
    }
    // Junk reads as false or undefined, never throws.
    const j = await typedAsync(
      () => getSignedCookie(withCookies([junk]), name, SECRET),
      [],
    );
    expect(
      j.value === undefined || j.value === false || typeof j.value === "string",
      () => "junk result",
    );
  },
};
