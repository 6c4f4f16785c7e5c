/**
 * The value types of the settings table (`settings.ts`): how each kind of
 * value is read from a flag, an environment variable and the YAML file, and
 * checked, with messages that name the flag, variable or key.
 *
 * @module
 */
import { resolve as resolvePath } from "node:path";
import {
  ACCESS_LOG_FORMATS,
  type AccessLogFormat,
  type CacheRule,
  type DotfilesMode,
  Filter,
  type PlainHttpMode,
  type ProxyProtocolOption,
  type TrustProxy,
} from "@org/httpd";
import { UsageError } from "../errors.ts";
import { type Credentials, parseCredentials } from "./auth/credentials.ts";
import { checkGlob, checkRule } from "./cache_rules.ts";
import { parseChoice } from "./choice.ts";
import { ANY_ORIGIN, looksLikeOrigin, parseOrigins } from "./cors_origins.ts";
import { formatDuration, parseDuration } from "./duration.ts";
import { headerNameProblem, headerValueProblem } from "./header_field.ts";
import { type HostPort, MAX_PORT, parseHostPort } from "./host_port.ts";
import { DEFAULT_HSTS, parseHsts } from "./hsts.ts";
import { LOG_LEVELS, type LogLevel } from "./log_level.ts";
import { didYouMean } from "./suggest.ts";
import type { YamlNode } from "./yaml_node.ts";

/**
 * How one kind of value is written and checked. `name` is always the flag,
 * variable or key being read, so that a mistake names it.
 *
 * @typeParam T The value.
 */
export interface ValueType<T> {
  /** The placeholder in `--help`: `N`, `FILE`; empty for a switch. */
  readonly metavar: string;
  /** What a value looks like, for "expected ..." in messages. */
  readonly expected: string;
  /** A switch: `--x` alone is on, `--no-x` off; the flag takes no value. */
  readonly switch?: boolean;
  /** The value holds a secret: messages never repeat it. */
  readonly secret?: boolean;
  /**
   * Reads the text of a flag or an environment variable. Absent for a
   * value only the YAML file can write.
   */
  parse?(name: string, text: string): T;
  /** Reads a YAML value; default: the scalar's text, through `parse`. */
  yaml?(name: string, node: YamlNode): T;
  /**
   * Both values, the second written later (a repeated flag) or in a
   * higher source (a setting that accumulates). Without it, the later or
   * higher value replaces the other.
   */
  concat?(first: T, second: T, name: string): T;
  /** Makes a relative path absolute against the directory its source's paths start from. */
  resolve?(value: T, base: string): T;
  /** How `--help` writes a default value. */
  show?(value: T): string;
  /**
   * For a flag followed by words (`--cors A B`): whether a word after it
   * is one of its values rather than the next argument.
   */
  word?(text: string): boolean;
}

/** Reads YAML through `parse`, the text of a one-line scalar (numbers and booleans as written). */
export function yamlText<T>(
  type: ValueType<T>,
  name: string,
  node: YamlNode,
): T {
  if (type.yaml) return type.yaml(name, node);
  if (!type.parse) throw node.wrongType(name, type.expected);
  return yamlTextOf(type, name, node);
}

const same = <T>(value: T): string => String(value);

/** Text kept as written: the `--config` file, named in messages as typed. */
export const TEXT: ValueType<string> = {
  metavar: "FILE",
  expected: "a path",
  parse: (name, text) => nonEmpty(name, text, "a path"),
};

/** A file or directory; relative paths start from the source's directory. */
export function path(metavar: "FILE" | "DIR"): ValueType<string> {
  return {
    ...TEXT,
    metavar,
    resolve: (value, base) => resolvePath(base, value),
  };
}

/** A file inside the served root, kept relative to it: `404.html`. */
export const ROOT_FILE: ValueType<string> = { ...TEXT, metavar: "PATH" };

/** A file inside the root, or `false` for none (`--no-fallback`). */
export const ROOT_FILE_OR_OFF: ValueType<string | false> = {
  metavar: "PATH",
  expected: "a path or false",
  parse: (name, text) =>
    text.trim().toLowerCase() === "false"
      ? false
      : nonEmpty(name, text, "a path"),
  yaml(name, node) {
    if (typeof node.value === "boolean") {
      if (node.value) throw node.wrongType(name, "a path or false");
      return false;
    }
    return node.line(name, "a path");
  },
};

/** `true` or `false`: a switch `--x` / `--no-x`. */
export const BOOL: ValueType<boolean> = {
  metavar: "",
  expected: "true or false",
  switch: true,
  parse(name, text) {
    const word = text.trim().toLowerCase();
    if (word === "true") return true;
    if (word === "false") return false;
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${text}": expected true or false`,
    );
  },
  yaml(name, node) {
    if (typeof node.value !== "boolean") {
      throw node.wrongType(name, "true or false");
    }
    return node.value;
  },
  show: (value) => value ? "on" : "off",
};

/** On only for `true` (any case); any other text is off. For variables other tools may set. */
export const LAX_BOOL: ValueType<boolean> = {
  metavar: "true",
  expected: "true",
  parse: (_name, text) => text.trim().toLowerCase() === "true",
  show: (value) => value ? "on" : "off",
};

/** One of a fixed set of words, in any case. */
export function choice<T extends string>(
  words: readonly T[],
): ValueType<T> {
  const listed = words.join(", ");
  return {
    metavar: words.length <= 3 ? words.join("|") : "WORD",
    expected: `one of ${listed}`,
    parse: (name, text) => parseChoice(name, text, words),
    show: same,
  };
}

/** The ways names starting with a dot are treated. */
const DOTFILES_MODES: readonly DotfilesMode[] = [
  "ignore",
  "allow",
  "deny",
];

/** What a plain HTTP request on the HTTPS port may get. */
const PLAIN_HTTP_MODES: readonly PlainHttpMode[] = ["alert", "answer"];

/** `--dotfiles`. */
export const DOTFILES: ValueType<DotfilesMode> = choice(DOTFILES_MODES);
/** `--tls-plain-http`. */
export const PLAIN_HTTP: ValueType<PlainHttpMode> = choice(PLAIN_HTTP_MODES);
/** `--log-format`. */
export const LOG_FORMAT: ValueType<AccessLogFormat> = {
  ...choice(ACCESS_LOG_FORMATS),
  metavar: "FORMAT",
  show: undefined,
};
/** `--log-level`. */
export const LOG_LEVEL: ValueType<LogLevel> = {
  ...choice(LOG_LEVELS),
  metavar: "LEVEL",
};

/** A TCP port, 0 to 65535; in YAML an integer. */
export const PORT: ValueType<number> = {
  metavar: "N",
  expected: `an integer from 0 to ${MAX_PORT}`,
  parse: (name, text) => parsePort(name, text),
  yaml(name, node) {
    const value = node.value;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw node.wrongType(name, `an integer from 0 to ${MAX_PORT}`);
    }
    if (value < 0 || value > MAX_PORT) {
      throw new UsageError(
        "out-of-range",
        `Cannot use ${name} ${value}: expected an integer from 0 to ${MAX_PORT}`,
        { position: node.position },
      );
    }
    return value;
  },
  show: same,
};

/** A port that is not the default: `--redirect-http PORT`. */
export const OTHER_PORT: ValueType<number> = { ...PORT, metavar: "PORT" };

/** An IP address or host name to bind. */
export const HOST: ValueType<string> = {
  metavar: "ADDR",
  expected: "an IP address or host name",
  parse(name, text) {
    if (text === "" || /\s/.test(text)) {
      throw new UsageError(
        "wrong-type",
        `Cannot use ${name} "${text}": expected an IP address or host name`,
      );
    }
    return text;
  },
  show: same,
};

/** `[HOST:]PORT`; a bare port binds {@linkcode DEFAULT_METRICS_HOST}. */
export const HOST_PORT: ValueType<HostPort> = {
  metavar: "[HOST:]PORT",
  expected: "[HOST:]PORT",
  parse: (name, text) => parseHostPort(name, text, DEFAULT_METRICS_HOST),
};

/** The host `--metrics-bind PORT` binds: metrics stay on this machine unless asked. */
export const DEFAULT_METRICS_HOST = "127.0.0.1";

/** The longest drain a stop may wait: an hour is already more than any orchestrator grants. */
export const MAX_DRAIN_TIMEOUT_MS = 3_600_000;

/** A duration up to an hour: `10` (seconds), `2.5s`, `500ms`, `1m`; in milliseconds. */
export const DURATION: ValueType<number> = {
  metavar: "TIME",
  expected: "a duration such as 10s or 500ms",
  parse: (name, text) => parseDurationSetting(name, text),
  show: formatDuration,
};

/** The largest size accepted: a tebibyte, past any body worth reading. */
export const MAX_SIZE = 1024 ** 4;

const SIZE_UNITS: Record<string, number> = {
  "": 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
};

/** A size in bytes: `1048576`, or with a unit, `512k`, `10m`, `1g` (1024s, as nginx; `10MB` and `10MiB` too). */
export const SIZE: ValueType<number> = {
  metavar: "SIZE",
  expected: "a size such as 10m or 512k",
  parse(name, text) {
    const match = /^(\d+(?:\.\d+)?)\s*(?:([kmg])(?:i?b)?|b)?$/i.exec(
      text.trim(),
    );
    const bytes = match
      ? Math.round(
        Number(match[1]) * SIZE_UNITS[(match[2] ?? "").toLowerCase()]!,
      )
      : NaN;
    if (!(bytes <= MAX_SIZE)) {
      throw new UsageError(
        match ? "out-of-range" : "wrong-type",
        `Cannot use ${name} "${text}": expected a size up to 1024g, in bytes or with k, m or g (1024s), such as 10m`,
      );
    }
    return bytes;
  },
  show(bytes) {
    const unit = (["g", "m", "k"] as const).find((u) =>
      bytes >= SIZE_UNITS[u]! && bytes % SIZE_UNITS[u]! === 0
    );
    return unit ? `${bytes / SIZE_UNITS[unit]!}${unit}` : `${bytes}`;
  },
};

/** The largest `--workers` count accepted; more would only add contention. */
export const MAX_WORKERS = 256;

/** The value of `--workers`. */
export type WorkersValue = number | "auto";

/** A thread count from 1 to {@linkcode MAX_WORKERS}, or `auto` (one per CPU). */
export const WORKERS: ValueType<WorkersValue> = {
  metavar: "N|auto",
  expected: `an integer from 1 to ${MAX_WORKERS} or "auto"`,
  parse: (name, text) => parseWorkers(name, text),
  show: same,
};

/** A `Cache-Control` or other header value on one line. */
export const HEADER_VALUE: ValueType<string> = {
  metavar: "VALUE",
  expected: "a header value",
  parse(name, text) {
    const problem = headerValueProblem(text);
    if (problem) {
      throw new UsageError(
        "wrong-type",
        `Cannot use ${name} ${JSON.stringify(text)}: ${problem}`,
      );
    }
    return text;
  },
  yaml(name, node) {
    const text = node.text;
    if (text === undefined) throw node.wrongType(name, "a header value");
    return node.at(() => HEADER_VALUE.parse!(name, text));
  },
};

/** Header fields added to responses; a later one replaces an earlier one of the same name. */
export const HEADERS: ValueType<[string, string][]> = {
  metavar: "KEY=VALUE",
  expected: "a map of header names to values",
  parse: (name, text) => [parseHeader(name, text)],
  yaml(name, node) {
    if (node.kind === "nothing") return [];
    if (node.kind !== "map") {
      throw node.wrongType(name, "a map of header names to values");
    }
    return node.entries().map(({ key, value }) => {
      const field = key.text;
      const problem = field === undefined
        ? "expected a header name"
        : headerNameProblem(field);
      if (problem) {
        throw new UsageError("bad-header", `Cannot use ${name}: ${problem}`, {
          position: key.position,
        });
      }
      return [field!, HEADER_VALUE.yaml!(`${name}.${field}`, value)];
    });
  },
  concat: (first, second) => mergeHeaders(first, second),
};

/**
 * Header fields of both lists; one of `later` replaces one of `earlier`
 * with the same name (in any case), keeping its place.
 */
export function mergeHeaders(
  earlier: readonly [string, string][],
  later: readonly [string, string][],
): [string, string][] {
  const byName = new Map<string, [string, string]>();
  for (const field of [...earlier, ...later]) {
    byName.set(field[0].toLowerCase(), field);
  }
  return [...byName.values()];
}

/** Plain file names: `index.html,index.htm`. */
export const FILE_NAMES: ValueType<string[]> = {
  metavar: "NAMES",
  expected: "a list of file names",
  parse: (name, text) =>
    text.split(",").map((item) => fileName(name, item.trim())),
  yaml: (name, node) =>
    listOr(
      FILE_NAMES,
      name,
      node,
      (item) => item.at(() => fileName(name, item.line(name, "a file name"))),
    ),
};

/** Globs of paths: `assets/**`; repeatable, never split at commas (`{a,b}`). */
export const GLOBS: ValueType<string[]> = {
  metavar: "GLOB",
  expected: "a list of globs",
  parse: (name, text) => [checkGlob(name, text)],
  yaml: (name, node) =>
    listOr(
      GLOBS,
      name,
      node,
      (item) => item.at(() => checkGlob(name, item.line(name, "a glob"))),
    ),
  concat: (first, second) => [...second, ...first],
};

/** `Cache-Control` by glob, first match wins: a YAML list of `{match, cache-control}`. */
export const CACHE_RULES: ValueType<CacheRule[]> = {
  metavar: "",
  expected: "a list of { match, cache-control } maps",
  yaml(name, node) {
    const expected = "a list of { match, cache-control } maps";
    if (node.kind === "nothing") return [];
    if (node.kind !== "list") throw node.wrongType(name, expected);
    return node.items().map((item) => {
      if (item.kind !== "map") throw item.wrongType(name, expected);
      let match: string | undefined;
      let cacheControl: string | undefined;
      for (const { key, value } of item.entries()) {
        const field = key.text;
        if (field === "match") {
          match = value.line(`${name}.match`, "a glob");
        } else if (field === "cache-control") {
          cacheControl = HEADER_VALUE.yaml!(`${name}.cache-control`, value);
        } else {
          throw new UsageError(
            "unknown-key",
            `Unknown key "${name}.${field}"${
              didYouMean(field ?? "", ["match", "cache-control"])
            }`,
            { position: key.position },
          );
        }
      }
      if (match === undefined || cacheControl === undefined) {
        throw new UsageError(
          "missing-value",
          `Cannot use ${name}: each rule needs match and cache-control`,
          { position: item.position },
        );
      }
      const rule = { match, cacheControl };
      return item.at(() => checkRule(name, rule));
    });
  },
};

/** The CORS origins: `*`, or origins such as `https://app.example`; empty when off. */
export const ORIGINS: ValueType<string[]> = {
  metavar: "[ORIGIN...]",
  expected: 'true, "*", an origin or a list of origins',
  parse(name, text) {
    const word = text.trim().toLowerCase();
    if (word === "true") return [ANY_ORIGIN];
    if (word === "false") return [];
    return parseOrigins(name, text.split(","));
  },
  yaml(name, node) {
    if (typeof node.value === "boolean") return node.value ? [ANY_ORIGIN] : [];
    if (node.kind !== "list") return yamlTextOf(ORIGINS, name, node);
    const words = node.items().map((item) => item.line(name, "an origin"));
    return node.at(() => parseOrigins(name, words));
  },
  concat: (first, second, name) => parseOrigins(name, [...first, ...second]),
  word: looksLikeOrigin,
  show: (origins) => origins.length === 0 ? "off" : origins.join(","),
};

/** `USER:PASSWORD` pairs; repeatable. */
export const CREDENTIALS: ValueType<Credentials[]> = {
  metavar: "USER:PASSWORD",
  expected: "USER:PASSWORD or a list of them",
  secret: true,
  parse: (name, text) => [parseCredentials(name, text)],
  yaml: (name, node) =>
    listOr(CREDENTIALS, name, node, (item) => {
      const text = item.text;
      if (text === undefined) {
        throw item.wrongType(name, "USER:PASSWORD or a list of them");
      }
      return item.at(() => parseCredentials(name, text));
    }),
  concat: (first, second) => [...first, ...second],
};

/** A `Strict-Transport-Security` value; `true` is a year, `false` none. */
export const HSTS: ValueType<string | false> = {
  metavar: "VALUE",
  expected: "true, false or a header value",
  parse(name, text) {
    const word = text.trim().toLowerCase();
    if (word === "true") return DEFAULT_HSTS;
    if (word === "false") return false;
    return parseHsts(name, text);
  },
};

/** Which proxies to believe about the client address: a count, or addresses and CIDR ranges. */
export const TRUST_PROXY: ValueType<TrustProxy> = {
  metavar: "N|CIDRS",
  expected: "a proxy count or a list of CIDR ranges",
  parse: (name, text) => parseTrustProxy(name, text),
  yaml(name, node) {
    if (node.kind !== "list") return yamlTextOf(TRUST_PROXY, name, node);
    return node.items().map((item) => {
      const text = item.line(name, "an IP address or CIDR range");
      item.at(() => parseTrustProxy(name, [text]));
      return text;
    });
  },
};

/** The words a PROXY protocol setting takes. */
const PROXY_PROTOCOL_WORDS: readonly string[] = [
  "true",
  "false",
  "v1",
  "v2",
];

/** Whether connections start with a PROXY protocol header: `true`, `false`, `v1`, `v2`. */
export const PROXY_PROTOCOL: ValueType<ProxyProtocolOption> = {
  metavar: "v1|v2",
  expected: `one of ${PROXY_PROTOCOL_WORDS.join(", ")}`,
  parse: (name, text) => parseProxyProtocol(name, text),
};

/** A probe path: absolute, not `/`, no query or trailing slash. */
export const PROBE_PATH: ValueType<string> = {
  metavar: "PATH",
  expected: "an absolute path",
  parse: (name, text) => parseEndpointPath(name, text, "/healthz"),
};

/** The path `--metrics` publishes on when it names none. */
export const DEFAULT_METRICS_PATH = "/metrics";

/** The metrics endpoint's path, `true` for {@linkcode DEFAULT_METRICS_PATH}, `false` for none. */
export const METRICS_PATH: ValueType<string | false> = {
  metavar: "PATH",
  expected: "true, false or an absolute path",
  parse(name, text) {
    const word = text.trim().toLowerCase();
    if (word === "true") return DEFAULT_METRICS_PATH;
    if (word === "false") return false;
    return parseEndpointPath(name, text, DEFAULT_METRICS_PATH);
  },
  show: (path) => path === false ? "off" : path,
};

/** The text of a one-line scalar through the type's `parse`, for `yaml` methods that handle other shapes themselves. */
function yamlTextOf<T>(type: ValueType<T>, name: string, node: YamlNode): T {
  const text = node.line(name, type.expected);
  return node.at(() => type.parse!(name, text));
}

/** A YAML list read item by item, or one scalar read as the flag's text. */
function listOr<T>(
  type: ValueType<T[]>,
  name: string,
  node: YamlNode,
  item: (node: YamlNode) => T,
): T[] {
  if (node.kind === "nothing") return [];
  if (node.kind === "list") return node.items().map(item);
  return yamlTextOf(type, name, node);
}

function nonEmpty(name: string, text: string, what: string): string {
  if (text.trim() === "") {
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${text}": expected ${what}`,
    );
  }
  return text;
}

function fileName(name: string, text: string): string {
  if (text === "" || text.includes("/") || text.startsWith(".")) {
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${text}": expected a plain file name`,
    );
  }
  return text;
}

/**
 * Parses a port: an integer from 0 to 65535.
 *
 * @param name The flag or variable, for the message.
 * @param value The text.
 * @returns The port.
 * @throws {UsageError} For anything else.
 */
function parsePort(name: string, value: string): number {
  const text = value.trim();
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(port <= MAX_PORT)) {
    throw new UsageError(
      Number.isNaN(port) ? "wrong-type" : "out-of-range",
      `Cannot use ${name} "${value}": expected an integer from 0 to ${MAX_PORT}`,
    );
  }
  return port;
}

/**
 * Splits `KEY=VALUE` at the first `=`.
 *
 * @param name The flag, for the message.
 * @param value The text.
 * @returns The field name and value.
 * @throws {UsageError} Without `=`, or with a bad name or value.
 */
function parseHeader(name: string, value: string): [string, string] {
  const at = value.indexOf("=");
  const field = at < 0 ? value : value.slice(0, at).trim();
  const problem = at < 0 ? "expected KEY=VALUE" : headerNameProblem(field) ??
    headerValueProblem(value.slice(at + 1));
  if (problem) {
    throw new UsageError(
      "bad-header",
      `Cannot use ${name} ${JSON.stringify(value)}: ${problem}`,
    );
  }
  return [field, value.slice(at + 1).trim()];
}

/**
 * Parses a worker count: from 1 to {@linkcode MAX_WORKERS}, or `auto`.
 *
 * @param name The flag, key or variable, for the message.
 * @param value The text.
 * @returns The count or `"auto"`.
 * @throws {UsageError} For anything else.
 */
function parseWorkers(name: string, value: string): WorkersValue {
  if (value.trim() === "auto") return "auto";
  const count = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(count >= 1 && count <= MAX_WORKERS)) {
    throw new UsageError(
      "bad-workers",
      `Cannot use ${name} "${value}": expected an integer from 1 to ${MAX_WORKERS} or "auto"`,
    );
  }
  return count;
}

/**
 * Parses a duration setting: seconds (`10`, `2.5s`), milliseconds
 * (`500ms`) or minutes (`1m`), at most {@linkcode MAX_DRAIN_TIMEOUT_MS}.
 *
 * @param name The flag, key or variable, for the message.
 * @param value The text.
 * @returns Milliseconds.
 * @throws {UsageError} When the text is no duration or is too long.
 */
function parseDurationSetting(name: string, value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms > MAX_DRAIN_TIMEOUT_MS) {
    throw new UsageError(
      ms === undefined ? "wrong-type" : "out-of-range",
      `Cannot use ${name} "${value}": expected a duration up to 1 hour, such as 10s or 500ms`,
    );
  }
  return ms;
}

/** The most proxy hops `--trust-proxy N` accepts: real chains are 1 to 3. */
const MAX_TRUSTED_HOPS = 64;

/**
 * Parses a trusted-proxy setting: a count of proxies in front (`1`) or a
 * comma-separated list of IP addresses and CIDR ranges
 * (`10.0.0.0/8,::1`).
 *
 * @param name The flag, key or variable, for the message.
 * @param value The text, or the items of a YAML list.
 * @returns The count or the list, as the access log takes it.
 * @throws {UsageError} When the count is too large or an entry is no IP
 * address or CIDR range.
 */
function parseTrustProxy(
  name: string,
  value: string | readonly string[],
): TrustProxy {
  if (typeof value === "string" && /^\d+$/.test(value.trim())) {
    const hops = Number(value.trim());
    if (hops > MAX_TRUSTED_HOPS) {
      throw new UsageError(
        "out-of-range",
        `Cannot use ${name} "${value}": expected at most ${MAX_TRUSTED_HOPS} proxies`,
      );
    }
    return hops;
  }
  const list = (typeof value === "string" ? value.split(",") : value)
    .map((entry) => entry.trim());
  try {
    // The access log's own check, so that the launcher accepts exactly
    // what the server does.
    Filter.accessLog(() => {}, { trustProxy: list });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${value}": ${
        error.message.replace(/^Cannot trust proxy /, "")
      }, expected a proxy count or IP addresses and CIDR ranges`,
    );
  }
  return list;
}

/**
 * Checks the path of an endpoint the launcher adds (`--metrics`,
 * `--health`, `--ready`): absolute, without query, fragment, spaces or a
 * trailing slash, and not `/` itself (which would hide every file).
 *
 * @param name The flag, key or variable, for the message.
 * @param value The path.
 * @param example A path the message suggests, such as `/metrics`.
 * @returns The path.
 * @throws {UsageError} When it is not such a path.
 */
function parseEndpointPath(
  name: string,
  value: string,
  example: string,
): string {
  if (!/^\/[^\s?#]*[^\s?#/]$/.test(value)) {
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${value}": expected an absolute path other than "/", such as "${example}"`,
    );
  }
  return value;
}

/**
 * Parses a PROXY protocol setting: `true` (versions 1 and 2), `false`,
 * `v1` or `v2`.
 *
 * @param name The flag, key or variable, for the message.
 * @param value The text.
 * @returns The server's `proxyProtocol` option.
 * @throws {UsageError} For any other word.
 */
function parseProxyProtocol(
  name: string,
  value: string,
): ProxyProtocolOption {
  switch (value.trim().toLowerCase()) {
    case "true":
      return true;
    case "false":
      return false;
    case "v1":
      return "v1";
    case "v2":
      return "v2";
  }
  throw new UsageError(
    "wrong-type",
    `Cannot use ${name} "${value}": expected ${
      PROXY_PROTOCOL_WORDS.join(", ")
    }`,
  );
}
