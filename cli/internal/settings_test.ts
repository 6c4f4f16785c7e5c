/**
 * The settings table, tested row by row through every source it has: the
 * tests are generated from `SETTINGS`, and `CASES` must have an entry for
 * every row (the type checker says when one is missing).
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "../errors.ts";
import { parseRunArgs, parseServeArgs } from "./args.ts";
import { readEnvSettings } from "./env.ts";
import { RUN_HELP, SERVE_HELP } from "./help.ts";
import { mergeSettings, type Settings } from "./merge.ts";
import {
  type Command,
  defaultOf,
  SETTING_IDS,
  type SettingId,
  settingOf,
  takes,
  type ValueOf,
} from "./settings.ts";
import { parseConfigYaml } from "./yaml_schema.ts";

/** Where relative paths of flags and variables start. */
const CWD = "/work";
/** Where relative paths of the YAML file start. */
const FILE_DIR = "/srv/conf";

/** One value of a setting, as every source writes it. */
interface Sample<T> {
  /** The text of the flag and of the variable. */
  text: string;
  /** The flag's arguments, when not `--flag TEXT` (switches: `--x`, `--no-x`). */
  args?: string[];
  /** The YAML value, when it is not written as the text. */
  yaml?: string;
  /** The value read; a function of the directory relative paths start from. */
  value: T | ((base: string) => T);
}

/** Two different values of a setting, and a wrong one. */
interface Case<T> {
  /** The value of the higher source in the precedence tests. */
  a: Sample<T>;
  /** The value of the lower source. */
  b: Sample<T>;
  /** For a setting that accumulates: what `a` over `b` gives. */
  both?: T | ((base: string) => T);
  /** A text every source refuses (absent: no text is refused). */
  bad?: string;
  /** The YAML value refused, when not written as `bad`. */
  badYaml?: string;
}

type Cases = { [K in SettingId]: Case<Exclude<ValueOf<K>, undefined>> };

const at = (path: string) => (base: string) => join(base, path);

const CASES: Cases = {
  config: {
    a: { text: "a.yaml", value: "a.yaml" },
    b: { text: "b.yaml", value: "b.yaml" },
  },
  port: {
    a: { text: "9000", value: 9000 },
    b: { text: "9001", value: 9001 },
    bad: "abc",
  },
  bind: {
    a: { text: "127.0.0.1", value: "127.0.0.1" },
    b: { text: "::1", yaml: '"::1"', value: "::1" },
    bad: "a b",
  },
  workers: {
    a: { text: "2", value: 2 },
    b: { text: "auto", value: "auto" },
    bad: "0",
  },
  drainTimeoutMs: {
    a: { text: "2.5s", value: 2500 },
    b: { text: "1m", value: 60_000 },
    bad: "soon",
  },
  maxBodyBytes: {
    a: { text: "10m", value: 10 * 1024 * 1024 },
    b: { text: "1500", value: 1500 },
    bad: "lots",
  },
  headers: {
    a: { text: "X-A=1", yaml: '{X-A: "1"}', value: [["X-A", "1"]] },
    b: { text: "X-B=2", yaml: '{X-B: "2"}', value: [["X-B", "2"]] },
    both: [["X-B", "2"], ["X-A", "1"]],
    bad: "X A=1",
    badYaml: "[a]",
  },
  stagingHeaders: {
    a: { text: "", yaml: "{X-S: on}", value: [["X-S", "on"]] },
    b: { text: "", yaml: "{X-T: off}", value: [["X-T", "off"]] },
    badYaml: "{bad name: x}",
  },
  staging: {
    a: { text: "true", value: true },
    b: { text: "yes", value: false },
  },
  root: {
    a: { text: "www", value: at("www") },
    b: { text: "site", value: at("site") },
    bad: "",
  },
  indexFiles: {
    a: {
      text: "home.html,index.html",
      yaml: "[home.html, index.html]",
      value: ["home.html", "index.html"],
    },
    b: { text: "a.htm", value: ["a.htm"] },
    bad: "../x",
  },
  fallback: {
    a: { text: "404.html", value: "404.html" },
    b: { text: "false", args: ["--no-fallback"], value: false },
    bad: "",
  },
  spaFallback: {
    a: { text: "index.html", value: "index.html" },
    b: { text: "app.html", value: "app.html" },
    bad: "",
  },
  dirListing: {
    a: { text: "true", value: true },
    b: { text: "false", value: false },
    bad: "yes",
  },
  http3: {
    a: { text: "true", value: true },
    b: { text: "false", value: false },
    bad: "yes",
  },
  dotfiles: {
    a: { text: "allow", value: "allow" },
    b: { text: "deny", value: "deny" },
    bad: "hide",
  },
  cacheControl: {
    a: { text: "no-cache", value: "no-cache" },
    b: { text: "max-age=60", value: "max-age=60" },
    bad: "a\u0001b",
    badYaml: '"a\\u0001b"',
  },
  immutable: {
    a: { text: "assets/**", value: ["assets/**"] },
    b: { text: "*.woff2", yaml: '["*.woff2"]', value: ["*.woff2"] },
    both: ["assets/**", "*.woff2"],
    bad: "a{b",
    badYaml: '["a{b"]',
  },
  cacheRules: {
    a: {
      text: "",
      yaml: '[{match: "*.html", cache-control: no-cache}]',
      value: [{ match: "*.html", cacheControl: "no-cache" }],
    },
    b: {
      text: "",
      yaml: "[{match: a/**, cache-control: max-age=1}]",
      value: [{ match: "a/**", cacheControl: "max-age=1" }],
    },
    badYaml: "[{match: a}]",
  },
  gzip: {
    a: { text: "false", value: false },
    b: { text: "true", value: true },
    bad: "yes",
  },
  compress: {
    a: { text: "true", value: true },
    b: { text: "false", value: false },
    bad: "yes",
  },
  cors: {
    a: { text: "https://a.example", value: ["https://a.example"] },
    b: { text: "*", yaml: '"*"', value: ["*"] },
    bad: "ftp://x",
  },
  authUsers: {
    a: { text: "ann:pw1", value: [{ user: "ann", password: "pw1" }] },
    b: { text: "bob:pw2", value: [{ user: "bob", password: "pw2" }] },
    bad: "nopass",
  },
  authFile: {
    a: { text: "users", value: at("users") },
    b: { text: "other", value: at("other") },
    bad: "",
  },
  logLevel: {
    a: { text: "debug", value: "debug" },
    b: { text: "warn", value: "warn" },
    bad: "loud",
  },
  accessLog: {
    a: { text: "true", value: true },
    b: { text: "false", value: false },
    bad: "yes",
  },
  logFormat: {
    a: { text: "json", value: "json" },
    b: { text: "common", value: "common" },
    bad: "xml",
  },
  tlsCert: {
    a: { text: "c.pem", value: at("c.pem") },
    b: { text: "d.pem", value: at("d.pem") },
    bad: "",
  },
  tlsKey: {
    a: { text: "k.pem", value: at("k.pem") },
    b: { text: "l.pem", value: at("l.pem") },
    bad: "",
  },
  tlsPlainHttp: {
    a: { text: "answer", value: "answer" },
    b: { text: "alert", value: "alert" },
    bad: "reply",
  },
  redirectHttp: {
    a: { text: "8081", value: 8081 },
    b: { text: "8082", value: 8082 },
    bad: "http",
  },
  hsts: {
    a: { text: "max-age=60", value: "max-age=60" },
    b: { text: "false", value: false },
    bad: "preload",
  },
  proxyProtocol: {
    a: { text: "v2", value: "v2" },
    b: { text: "v1", value: "v1" },
    bad: "v3",
  },
  trustProxy: {
    a: { text: "2", value: 2 },
    b: { text: "10.0.0.0/8", value: ["10.0.0.0/8"] },
    bad: "proxy.local",
  },
  healthPath: {
    a: { text: "/healthz", value: "/healthz" },
    b: { text: "/live", value: "/live" },
    bad: "healthz",
  },
  readyPath: {
    a: { text: "/readyz", value: "/readyz" },
    b: { text: "/ready", value: "/ready" },
    bad: "/",
  },
  drainDelayMs: {
    a: { text: "2s", value: 2000 },
    b: { text: "500ms", value: 500 },
    bad: "soon",
  },
  metrics: {
    a: { text: "/ops/metrics", value: "/ops/metrics" },
    b: { text: "true", value: "/metrics" },
    bad: "nope",
  },
  metricsBind: {
    a: { text: "9100", value: { hostname: "127.0.0.1", port: 9100 } },
    b: { text: "0.0.0.0:9101", value: { hostname: "0.0.0.0", port: 9101 } },
    bad: "host:",
    badYaml: '"host:"',
  },
  metricsAuth: {
    a: { text: "true", value: true },
    b: { text: "false", value: false },
    bad: "yes",
  },
};

/** The sources of one reading. */
interface Input {
  args?: string[];
  env?: Record<string, string>;
  yaml?: string;
  command?: Command;
}

/** Reads the sources as the launcher does, without the file system. */
function read(input: Input): Settings {
  const command = input.command ?? "serve";
  const args = input.args ?? [];
  const line = command === "serve"
    ? parseServeArgs(args)
    : parseRunArgs(["main.ts", ...args]);
  const env = readEnvSettings((name) => input.env?.[name], command);
  if (env.problems.length > 0) throw UsageError.all(env.problems);
  return mergeSettings({
    command,
    flags: line.values,
    env: env.values,
    yaml: input.yaml === undefined
      ? {}
      : parseConfigYaml(input.yaml, "site.yaml", { command }),
    cwd: CWD,
    fileDir: FILE_DIR,
  });
}

/** The flag's arguments for a sample. */
function flagArgs(id: SettingId, sample: Sample<unknown>): string[] {
  if (sample.args) return sample.args;
  const row = settingOf(id);
  if (row.type.switch) {
    return [sample.text === "true" ? `--${row.flag}` : `--no-${row.flag}`];
  }
  if (row.bare !== undefined || row.words) {
    return [`--${row.flag}=${sample.text}`];
  }
  return [`--${row.flag}`, sample.text];
}

/** A YAML file that sets the row's key to `value`: the value is at line 2. */
function yamlFile(id: SettingId, value: string): string {
  const [section, key] = settingOf(id).yaml!.split(".");
  return `${section}:\n  ${key}: ${value}\n`;
}

/** The column of the value in {@linkcode yamlFile}. */
function yamlColumn(id: SettingId): number {
  return settingOf(id).yaml!.split(".")[1]!.length + 5;
}

function expected<T>(value: T | ((base: string) => T), base: string): T {
  return typeof value === "function"
    ? (value as (base: string) => T)(base)
    : value;
}

/** The sources a row has: `flag`, `env`, `yaml`. */
function sourcesOf(id: SettingId): ("flag" | "env" | "yaml")[] {
  const row = settingOf(id);
  return (["flag", "env", "yaml"] as const).filter((source) =>
    row[source] !== undefined
  );
}

/** Reads one sample through one source alone. */
function readThrough(
  id: SettingId,
  source: "flag" | "env" | "yaml",
  sample: Sample<unknown>,
  command: Command = "serve",
): Settings {
  const row = settingOf(id);
  switch (source) {
    case "flag":
      return read({ args: flagArgs(id, sample), command });
    case "env":
      return read({ env: { [row.env!]: sample.text }, command });
    case "yaml":
      return read({ yaml: yamlFile(id, sample.yaml ?? sample.text), command });
  }
}

for (const id of SETTING_IDS) {
  const row = settingOf(id);
  const { a, b, both, bad, badYaml } = CASES[id];

  Deno.test(
    `setting ${id}: each of its sources reads it (${sourcesOf(id).join(", ")})`,
    () => {
      for (const source of sourcesOf(id)) {
        for (const sample of [a, b]) {
          const settings = readThrough(id, source, sample);
          const base = source === "yaml" ? FILE_DIR : CWD;
          assert.deepEqual(
            settings.value(id),
            expected(sample.value, base),
            `${source} ${sample.text}`,
          );
          const origin = settings.origin(id);
          assert.equal(origin.source, source);
          if (source === "yaml") {
            assert.equal(origin.name, row.yaml);
            assert.deepEqual(origin.position, {
              file: "site.yaml",
              line: 2,
              column: yamlColumn(id),
            });
          }
          if (source === "env") assert.equal(origin.name, row.env);
        }
      }
      if (row.short !== undefined) {
        const settings = read({ args: [`-${row.short}`, a.text] });
        assert.deepEqual(settings.value(id), expected(a.value, CWD));
      }
    },
  );

  Deno.test(`setting ${id}: flag > environment > YAML > default`, () => {
    const sources = sourcesOf(id);
    const input = (source: string, sample: Sample<unknown>): Input => {
      switch (source) {
        case "flag":
          return { args: flagArgs(id, sample) };
        case "env":
          return { env: { [row.env!]: sample.text } };
        default:
          return { yaml: yamlFile(id, sample.yaml ?? sample.text) };
      }
    };
    for (let i = 0; i < sources.length; i++) {
      for (let j = i + 1; j < sources.length; j++) {
        const higher = sources[i]!;
        const lower = sources[j]!;
        const settings = read({ ...input(lower, b), ...input(higher, a) });
        const base = higher === "yaml" ? FILE_DIR : CWD;
        assert.deepEqual(
          settings.value(id),
          expected(both ?? a.value, base),
          `${higher} over ${lower}`,
        );
        assert.equal(settings.origin(id).source, higher);
      }
    }
    const none = read({});
    assert.equal(none.named(id), false);
    assert.deepEqual(none.value(id), defaultOf(id, "serve"));
    assert.equal(none.origin(id).source, "default");
  });

  if (bad !== undefined || badYaml !== undefined) {
    Deno.test(`setting ${id}: a wrong value is refused, naming the flag, variable or key`, () => {
      for (const source of sourcesOf(id)) {
        const text = source === "yaml" ? badYaml ?? bad : bad;
        if (text === undefined) continue;
        if (source === "env" && text.trim() === "") continue; // Unset.
        const sample = { text, value: undefined };
        const flag = row.type.switch ? [`--${row.flag}=${text}`] : undefined;
        assert.throws(
          () =>
            source === "flag" && flag
              ? read({ args: flag })
              : readThrough(id, source, sample),
          (error: unknown) => {
            assert.ok(error instanceof UsageError, String(error));
            assert.equal(error.exitCode, 2);
            const name = source === "flag"
              ? `--${row.flag}`
              : source === "env"
              ? row.env!
              : row.yaml!;
            assert.ok(error.message.includes(name), error.message);
            if (source === "yaml") assert.equal(error.position?.line, 2);
            return true;
          },
          `${source} ${JSON.stringify(text)}`,
        );
      }
    });
  }

  if (!takes(id, "run")) {
    Deno.test(`setting ${id}: run refuses it from every source`, () => {
      for (const source of sourcesOf(id)) {
        assert.throws(
          () => readThrough(id, source, a, "run"),
          (error: unknown) =>
            error instanceof UsageError && error.code === "wrong-command" &&
            / with run: it is for serving a directory/.test(error.message),
          source,
        );
      }
    });
  }
}

Deno.test("SETTINGS: a row without a flag, key or variable says why", () => {
  for (const id of SETTING_IDS) {
    const row = settingOf(id);
    if (sourcesOf(id).length < 3) {
      assert.ok(row.without, `${id} has no ${"flag, env or yaml"}`);
    }
    if (row.flag !== undefined || row.env !== undefined) {
      assert.ok(row.type.parse, `${id}: its type cannot read text`);
    }
  }
});

Deno.test("SETTINGS: flags, short flags, keys and variables are unique and well formed", () => {
  for (const field of ["flag", "short", "yaml", "env"] as const) {
    const names = SETTING_IDS.map((id) => settingOf(id)[field])
      .filter((name) => name !== undefined);
    assert.equal(new Set(names).size, names.length, field);
  }
  for (const id of SETTING_IDS) {
    const row = settingOf(id);
    if (row.flag) assert.match(row.flag, /^[a-z][a-z0-9-]+$/, id);
    if (row.short) assert.match(row.short, /^[a-z]$/, id);
    if (row.yaml) assert.match(row.yaml, /^[a-z]+\.[a-z][a-z0-9-]+$/, id);
    if (row.env && id !== "staging") {
      assert.match(row.env, /^SERVICE_[A-Z0-9_]+$/, id);
    }
  }
});

Deno.test("--help names every flag, key and variable of the settings its command takes", () => {
  const helps = [["serve", SERVE_HELP], ["run", RUN_HELP]] as const;
  for (const [command, help] of helps) {
    for (const id of SETTING_IDS.filter((id) => takes(id, command))) {
      const row = settingOf(id);
      for (const name of [row.flag && `--${row.flag}`, row.yaml, row.env]) {
        if (name === undefined) continue;
        assert.ok(help.includes(name), `${command} --help and ${name}`);
      }
      if (row.short) {
        assert.ok(help.includes(`-${row.short}, --${row.flag}`), row.short);
      }
    }
    // The directory's settings are not offered to run.
    if (command === "run") assert.ok(!help.includes("static.root"));
  }
});
