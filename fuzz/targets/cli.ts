/**
 * The launcher's inputs: the YAML configuration schema and htpasswd files.
 *
 * @module
 */
import fc from "fast-check";
import { UsageError, YamlSyntaxError } from "../../cli/errors.ts";
import {
  hashKind,
  parseHtpasswd,
  verifyPassword,
} from "../../cli/internal/auth/htpasswd.ts";
import { parseConfigYaml } from "../../cli/internal/yaml_schema.ts";
import { expect, type Target, typed, typedAsync } from "../harness.ts";
import { mutatedText } from "../mutate.ts";

const YAML_SEEDS = [
  `server:
  port: 8080
  bind: 0.0.0.0
  drain-timeout: 10s
  trust-proxy: [10.0.0.0/8, loopback]
  cors: ["https://a.example", "https://b.example"]
  hsts: max-age=31536000; includeSubDomains
  health: /healthz
static:
  root: ./public
  fallback: 404.html
  index-files: [index.html, index.htm]
  cache-control: public, max-age=60
  immutable: ["assets/**"]
  gzip: true
  dir-listing: false
  dotfiles: deny
headers:
  always:
    X-Frame-Options: DENY
  staging:
    X-Robots-Tag: noindex
logging:
  level: info
  access-log: true
  format: json
metrics:
  path: /metrics
  bind: 127.0.0.1:9090
  auth: false
`,
  `# anchors and aliases
headers:
  always: &h
    X-A: "1"
    X-B: '2'
  staging: *h
static: {root: ., index-files: [a, b, c]}
auth:
  users: ["alice:$apr1$uXHrYbbD$AVw8WF1aSh28yZ7x7q0Dk1"]
`,
  `a: &a [x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b]
d: [*c, *c, *c, *c, *c, *c, *c, *c]
`,
  `static:
  cache-rules:
    - match: "*.html"
      cache-control: no-cache
    - match: "assets/**"
      cache-control: "public, max-age=31536000, immutable"
`,
  "server: {port: 0x1F90, bind: '::1'}\n---\nserver: {port: 1}\n",
  "? [a, b]\n: c\nstatic: !!str 1\n",
];

/** `parseConfigYaml`: typed errors with positions inside the file, deterministic. */
export const yamlConfig: Target<string> = {
  name: "yaml-config",
  entry: "cli/internal/yaml_schema.ts parseConfigYaml",
  ciRuns: 2_500,
  arbitrary() {
    return fc.oneof(
      { weight: 6, arbitrary: mutatedText(YAML_SEEDS, 5) },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 60 }) },
    );
  },
  check(text) {
    const r = typed(() => parseConfigYaml(text, "fuzz.yaml"), [
      UsageError,
      YamlSyntaxError,
    ]);
    const lines = text.split(/\r\n|\r|\n/).length;
    if (r.error) {
      const position = (r.error as UsageError).position;
      if (position !== undefined) {
        expect(
          position.line >= 1 && position.line <= lines + 1 &&
            position.column >= 1,
          () =>
            `position ${position.line}:${position.column} outside ${lines} lines`,
        );
      }
    }
    // Determinism, on one input in eight (a parse costs milliseconds).
    if (text.length % 8 !== 0) return;
    const again = typed(() => parseConfigYaml(text, "fuzz.yaml"), [
      UsageError,
      YamlSyntaxError,
    ]);
    expect(
      JSON.stringify(again.value) === JSON.stringify(r.value) &&
        again.error?.message === r.error?.message,
      () => "a second parse differs",
    );
  },
};

const HASHES = [
  "$2y$05$/aBA8M9RpNG5p2iRYzMEbe93TLWSCDCjHxC8rDAfJwrbf3xTD7knG",
  "$apr1$uXHrYbbD$AVw8WF1aSh28yZ7x7q0Dk1",
  "$1$abc$PNQ/S0oN.39nKwXxRhnTZ0",
  "{SHA}UWuXg/ylF+7L0dBk2i0WUxCxl1k=",
  "$5$phBnUCN5rp7cIZw1$jru23QDl7n5SBEgygJdydymWgz2mPG9NjmtGx2TPR6/",
  "$5$rounds=1000$phBnUCN5rp7cIZw1$jru23QDl7n5SBEgygJdydymWgz2mPG9NjmtGx2TPR6/",
  "$6$TkdITRucL9KsK8RZ$zdrsQ0T4Zr2HRkRHCZBdJzdtBQkOPCl.c/wkBVlt9u/.eXFVGqFX9fjMvyyk07mJkz5BnR.tBI3BGhm1uDE6s.",
];

/**
 * Hashes slow to verify by design (bcrypt above the minimum cost, SHA-crypt
 * above 1,000 rounds, its default being 5,000): not verified, or a million
 * inputs would take hours. Out-of-range costs are verified: they are fast.
 */
function costly(hash: string): boolean {
  const bcrypt = /^\$2[aby]\$(\d\d)\$/.exec(hash);
  if (bcrypt) {
    const cost = Number(bcrypt[1]);
    return cost > 4 && cost <= 31;
  }
  if (!/^\$[56]\$/.test(hash)) return false;
  const rounds = /^\$[56]\$rounds=(\d+)\$/.exec(hash);
  return rounds === null || Number(rounds[1]) > 1000;
}

/** `parseHtpasswd`, `hashKind` and `verifyPassword`. */
export const htpasswd: Target<{ text: string; password: string }> = {
  name: "htpasswd",
  entry:
    "cli/internal/auth/htpasswd.ts parseHtpasswd, hashKind, verifyPassword",
  ciRuns: 2_000,
  async: true,
  timeBoundMs: 500,
  arbitrary() {
    const seeds = [
      HASHES.map((h, i) => `user${i}:${h}`).join("\n") + "\n",
      "# comment\n\nalice:$apr1$uXHrYbbD$AVw8WF1aSh28yZ7x7q0Dk1\r\nbob:{SHA}UWuXg/ylF+7L0dBk2i0WUxCxl1k=\n",
    ];
    return fc.record({
      text: fc.oneof(
        { weight: 6, arbitrary: mutatedText(seeds, 3) },
        {
          weight: 2,
          arbitrary: fc.tuple(
            fc.constantFrom(...HASHES),
            fc.nat(),
            fc.constantFrom(..."$0123456789abcxyz./{}=:".split("")),
          ).map(
            ([h, at, c]) =>
              `u:${h.slice(0, at % h.length)}${c}${
                h.slice((at % h.length) + 1)
              }\n`,
          ),
        },
        { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
      ),
      password: fc.string({ maxLength: 12 }),
    });
  },
  async check({ text, password }) {
    const r = typed(() => parseHtpasswd(text, "fuzz.htpasswd"), [UsageError]);
    if (!r.value) return;
    const users = r.value;
    // Round trip: the entries written back read the same.
    const written = [...users].map(([u, h]) => `${u}:${h}`).join("\n");
    const again = typed(() => parseHtpasswd(written, "again"), [UsageError]);
    expect(
      again.value !== undefined &&
        JSON.stringify([...again.value]) === JSON.stringify([...users]),
      () =>
        `written back as ${JSON.stringify(written)}: ${
          again.error?.message ?? JSON.stringify([...again.value!])
        }`,
    );
    for (const [user, hash] of users) {
      expect(
        hashKind(hash) !== undefined,
        () => `entry of ${user} kept with an unknown hash`,
      );
      expect(
        !user.includes(":") && user !== "",
        () => `user ${JSON.stringify(user)}`,
      );
    }
    // verifyPassword says true or false, and documents no error: one entry
    // per input (hashing is slow by design), the one the password picks.
    const entries = [...users].filter(([, h]) => !costly(h));
    // (And on one input in four, by the password's length: the hashes
    // cost a millisecond each.)
    if (password.length % 4 !== 0) return;
    const picked =
      entries[(password.length >> 2) % Math.max(1, entries.length)];
    if (picked !== undefined) {
      const v = await typedAsync(() => verifyPassword(password, picked[1]), []);
      expect(typeof v.value === "boolean", () => "verifyPassword result");
    }
  },
};
