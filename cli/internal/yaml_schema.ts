/**
 * Reads the YAML configuration file with `npm:yaml` and checks it against the
 * launcher's schema, keeping the line and column of every value so a mistake can
 * name its place.
 *
 * Anchors, aliases, tags and multi-line scalars are resolved by the YAML
 * parser first; the result is accepted when it fits the schema (a folded
 * `cache-control` that ends with a line break does not fit a header value).
 *
 * @module
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type Scalar,
} from "yaml";
import {
  ACCESS_LOG_FORMATS,
  type AccessLogFormat,
  type CacheRule,
  type DotfilesMode,
  type PlainHttpMode,
  type ProxyProtocolOption,
} from "@org/httpd";
import { type SourcePosition, UsageError, YamlSyntaxError } from "../errors.ts";
import { LOG_LEVELS, type LogLevel } from "./log_level.ts";
import {
  DEFAULT_METRICS_HOST,
  DOTFILES_MODES,
  MAX_PORT,
  parseDrainTimeout,
  parseMetricsPath,
  parseProbePath,
  parseProxyProtocol,
  parseTrustProxy,
  PLAIN_HTTP_MODES,
  PROXY_PROTOCOL_WORDS,
} from "./args.ts";
import type { TrustProxy } from "@org/httpd";
import { type Credentials, parseCredentials } from "./auth/credentials.ts";
import { checkGlob, checkRule } from "./cache_rules.ts";
import { parseChoice } from "./choice.ts";
import { ANY_ORIGIN, parseOrigins } from "./cors_origins.ts";
import { headerNameProblem, headerValueProblem } from "./header_field.ts";
import { type HostPort, parseHostPort } from "./host_port.ts";
import { DEFAULT_HSTS, parseHsts } from "./hsts.ts";
import { didYouMean } from "./suggest.ts";

/** A value with where it was written. */
export interface Located<T> {
  value: T;
  position: SourcePosition;
}

/** What the YAML file says; absent keys stay `undefined`. */
export interface FileValues {
  port?: Located<number>;
  bind?: Located<string>;
  root?: Located<string>;
  fallback?: Located<string>;
  spaFallback?: Located<string>;
  indexFiles?: Located<string[]>;
  cacheControl?: Located<string>;
  gzip?: Located<boolean>;
  always: Located<[string, string]>[];
  staging: Located<[string, string]>[];
  logLevel?: Located<LogLevel>;
  accessLog?: Located<boolean>;
  drainTimeoutMs?: Located<number>;
  trustProxy?: Located<TrustProxy>;
  /** `static.fallback: false`. */
  noFallback?: Located<true>;
  dirListing?: Located<boolean>;
  dotfiles?: Located<DotfilesMode>;
  immutable?: Located<string[]>;
  cacheRules?: Located<CacheRule[]>;
  compress?: Located<boolean>;
  cors?: Located<string[]>;
  redirectHttp?: Located<number>;
  tlsPlainHttp?: Located<PlainHttpMode>;
  /** The `Strict-Transport-Security` value, or `false` for none. */
  hsts?: Located<string | false>;
  authUsers?: Located<Credentials[]>;
  authFile?: Located<string>;
  metricsPath?: Located<string>;
  metricsBind?: Located<HostPort>;
  metricsAuth?: Located<boolean>;
  logFormat?: Located<AccessLogFormat>;
  /** `server.proxy-protocol`. */
  proxyProtocol?: Located<ProxyProtocolOption>;
  /** `server.health`: the liveness path. */
  health?: Located<string>;
  /** `server.ready`: the readiness path. */
  ready?: Located<string>;
  /** `server.drain-delay`, in milliseconds. */
  drainDelayMs?: Located<number>;
}

type Kind =
  | "port"
  | "host"
  | "path"
  | "string-list"
  | "header-value"
  | "bool"
  | "header-map"
  | "log-level"
  | "duration"
  | "trust-proxy"
  | "choice"
  | "glob-list"
  | "cache-rules"
  | "origins"
  | "hsts"
  | "credentials"
  | "metrics-path"
  | "host-port"
  | "proxy-protocol"
  | "probe-path";

/** The schema of the configuration file: section → key → kind. */
const SCHEMA: Record<string, Record<string, Kind>> = {
  server: {
    port: "port",
    bind: "host",
    "drain-timeout": "duration",
    "trust-proxy": "trust-proxy",
    cors: "origins",
    "redirect-http": "port",
    hsts: "hsts",
    "tls-plain-http": "choice",
    "proxy-protocol": "proxy-protocol",
    health: "probe-path",
    ready: "probe-path",
    "drain-delay": "duration",
  },
  static: {
    root: "path",
    fallback: "path",
    "spa-fallback": "path",
    "index-files": "string-list",
    "cache-control": "header-value",
    "cache-rules": "cache-rules",
    immutable: "glob-list",
    gzip: "bool",
    compress: "bool",
    "dir-listing": "bool",
    dotfiles: "choice",
  },
  headers: { always: "header-map", staging: "header-map" },
  logging: { level: "log-level", "access-log": "bool", format: "choice" },
  auth: { users: "credentials", file: "path" },
  metrics: { path: "metrics-path", bind: "host-port", auth: "bool" },
};

/** The words a `choice` key takes. */
const CHOICES: Record<string, readonly string[]> = {
  "static.dotfiles": DOTFILES_MODES,
  "server.tls-plain-http": PLAIN_HTTP_MODES,
  "logging.format": ACCESS_LOG_FORMATS,
};

/** Every full key, for suggestions: `server.port`. */
const FULL_KEYS: readonly string[] = Object.entries(SCHEMA).flatMap((
  [section, keys],
) => Object.keys(keys).map((key) => `${section}.${key}`));

/**
 * Parses and checks a YAML configuration file.
 *
 * @param text The file's text.
 * @param file The file name as the user gave it, for messages.
 * @throws {YamlSyntaxError} When the text is not YAML.
 * @throws {UsageError} For an unknown key or a value of the wrong type.
 */
export function parseConfigYaml(text: string, file: string): FileValues {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
  });
  const where = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  const first = doc.errors[0];
  if (first) {
    const offset = first.pos[0];
    const reason = first.message.split("\n")[0]!.replace(
      / at line \d+, column \d+:?$/,
      "",
    );
    throw new YamlSyntaxError(
      `Cannot parse the YAML file: ${reason}`,
      where(offset),
    );
  }
  const reader = new Reader(doc, where);
  return reader.read();
}

class Reader {
  #doc: Document;
  #where: (offset: number) => SourcePosition;
  #values: FileValues = { always: [], staging: [] };
  /** The alias being read, so mistakes point where it is used. */
  #aliasSite: Node | null = null;

  constructor(doc: Document, where: (offset: number) => SourcePosition) {
    this.#doc = doc;
    this.#where = where;
  }

  read(): FileValues {
    const root = this.#resolve(this.#doc.contents);
    if (root === null || isNullScalar(root)) return this.#values;
    if (!isMap(root)) {
      throw this.#typeError("the file", root, "a map of sections");
    }
    for (const pair of root.items) {
      const section = this.#keyName(pair.key as Node | null, "");
      const keys = Object.hasOwn(SCHEMA, section) ? SCHEMA[section] : undefined;
      if (keys === undefined) {
        throw new UsageError(
          "unknown-key",
          `Unknown key "${section}"${
            didYouMean(section, [...Object.keys(SCHEMA), ...FULL_KEYS])
          }`,
          { position: this.#position(pair.key as Node) },
        );
      }
      const body = this.#resolve(pair.value as Node | null);
      if (body === null || isNullScalar(body)) continue;
      if (!isMap(body)) throw this.#typeError(section, body, "a map");
      for (const entry of body.items) {
        const key = this.#keyName(entry.key as Node | null, `${section}.`);
        const full = `${section}.${key}`;
        const kind = Object.hasOwn(keys, key) ? keys[key] : undefined;
        if (kind === undefined) {
          throw new UsageError(
            "unknown-key",
            `Unknown key "${full}"${didYouMean(full, FULL_KEYS)}`,
            {
              position: this.#position(entry.key as Node),
            },
          );
        }
        const at = (entry.value as Node | null) ?? (entry.key as Node);
        this.#store(full, kind, entry.value as Node | null, this.#position(at));
      }
    }
    return this.#values;
  }

  #store(
    full: string,
    kind: Kind,
    raw: Node | null,
    position: SourcePosition,
  ): void {
    this.#aliasSite = isAlias(raw) ? raw : null;
    try {
      this.#storeValue(full, kind, this.#resolve(raw), position);
    } finally {
      this.#aliasSite = null;
    }
  }

  #storeValue(
    full: string,
    kind: Kind,
    node: Node | null,
    position: SourcePosition,
  ): void {
    const v = this.#values;
    switch (kind) {
      case "port": {
        const port = { value: this.#port(full, node), position };
        if (full === "server.port") v.port = port;
        else v.redirectHttp = port;
        return;
      }
      case "host":
        v.bind = {
          value: this.#line(full, node, "an IP address or host name"),
          position,
        };
        return;
      case "path": {
        if (
          full === "static.fallback" && isScalar(node) &&
          typeof node.value === "boolean"
        ) {
          if (node.value) throw this.#typeError(full, node, "a path or false");
          v.noFallback = { value: true, position };
          return;
        }
        const value = this.#line(full, node, "a path");
        if (full === "static.root") v.root = { value, position };
        else if (full === "static.fallback") v.fallback = { value, position };
        else if (full === "auth.file") v.authFile = { value, position };
        else v.spaFallback = { value, position };
        return;
      }
      case "string-list":
        v.indexFiles = { value: this.#list(full, node), position };
        return;
      case "header-value":
        v.cacheControl = { value: this.#headerValue(full, node), position };
        return;
      case "bool": {
        if (!isScalar(node) || typeof node.value !== "boolean") {
          throw this.#typeError(full, node, "true or false");
        }
        const value = { value: node.value, position };
        if (full === "static.gzip") v.gzip = value;
        else if (full === "static.compress") v.compress = value;
        else if (full === "static.dir-listing") v.dirListing = value;
        else if (full === "metrics.auth") v.metricsAuth = value;
        else v.accessLog = value;
        return;
      }
      case "choice": {
        const text = this.#line(
          full,
          node,
          `one of ${CHOICES[full]!.join(", ")}`,
        );
        const value = this.#at(
          node,
          () => parseChoice(full, text, CHOICES[full]!),
        );
        if (full === "static.dotfiles") {
          v.dotfiles = { value: value as DotfilesMode, position };
        } else if (full === "server.tls-plain-http") {
          v.tlsPlainHttp = { value: value as PlainHttpMode, position };
        } else v.logFormat = { value: value as AccessLogFormat, position };
        return;
      }
      case "glob-list":
        v.immutable = {
          value: this.#items(full, node, "a list of globs").map((item) =>
            this.#at(
              item,
              () => checkGlob(full, this.#line(full, item, "a glob")),
            )
          ),
          position,
        };
        return;
      case "cache-rules":
        v.cacheRules = { value: this.#cacheRules(full, node), position };
        return;
      case "origins": {
        if (isScalar(node) && typeof node.value === "boolean") {
          if (node.value) v.cors = { value: [ANY_ORIGIN], position };
          return;
        }
        const items = isSeq(node) ? this.#items(full, node, "") : [node];
        const words = items.map((item) =>
          this.#line(full, item, 'true, "*", an origin or a list of origins')
        );
        v.cors = {
          value: this.#at(node, () => parseOrigins(full, words)),
          position,
        };
        return;
      }
      case "hsts": {
        if (isScalar(node) && typeof node.value === "boolean") {
          v.hsts = { value: node.value ? DEFAULT_HSTS : false, position };
          return;
        }
        const text = this.#line(full, node, "true, false or a header value");
        v.hsts = {
          value: this.#at(node, () => parseHsts(full, text)),
          position,
        };
        return;
      }
      case "credentials": {
        const items = isSeq(node) ? this.#items(full, node, "") : [node];
        v.authUsers = {
          value: items.map((item) => {
            const text = this.#text(item);
            if (text === undefined) {
              throw this.#typeError(
                full,
                item,
                "USER:PASSWORD or a list of them",
              );
            }
            return this.#at(item, () => parseCredentials(full, text));
          }),
          position,
        };
        return;
      }
      case "metrics-path": {
        const text = this.#line(full, node, "an absolute path");
        const value = this.#at(node, () => parseMetricsPath(text, full));
        v.metricsPath = { value, position };
        return;
      }
      case "proxy-protocol": {
        const expected = `one of ${PROXY_PROTOCOL_WORDS.join(", ")}`;
        const text = this.#line(full, node, expected);
        v.proxyProtocol = {
          value: this.#at(node, () => parseProxyProtocol(full, text)),
          position,
        };
        return;
      }
      case "probe-path": {
        const text = this.#line(full, node, "an absolute path");
        const value = {
          value: this.#at(node, () => parseProbePath(text, full)),
          position,
        };
        if (full === "server.health") v.health = value;
        else v.ready = value;
        return;
      }
      case "host-port": {
        const text = this.#line(full, node, "[HOST:]PORT");
        v.metricsBind = {
          value: this.#at(
            node,
            () => parseHostPort(full, text, DEFAULT_METRICS_HOST),
          ),
          position,
        };
        return;
      }
      case "header-map": {
        const target = full === "headers.always" ? v.always : v.staging;
        this.#headerMap(full, node, target);
        return;
      }
      case "duration": {
        const text = this.#text(node);
        try {
          const value = {
            value: parseDrainTimeout(full, text ?? ""),
            position,
          };
          if (full === "server.drain-delay") v.drainDelayMs = value;
          else v.drainTimeoutMs = value;
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          throw new UsageError(error.code, error.message, {
            position: this.#position(node),
          });
        }
        return;
      }
      case "trust-proxy": {
        // A count, a comma-separated string, or a list of ranges; a bad list
        // item is placed at its own line.
        const at = (item: Node | null, value: string | string[]) => {
          try {
            return parseTrustProxy(full, value);
          } catch (error) {
            if (!(error instanceof UsageError)) throw error;
            throw new UsageError(error.code, error.message, {
              position: this.#position(item),
            });
          }
        };
        if (isSeq(node)) {
          const items = node.items.map((raw) => {
            const item = this.#resolve(raw as Node | null);
            const text = this.#line(full, item, "an IP address or CIDR range");
            at(item, [text]);
            return text;
          });
          v.trustProxy = { value: items, position };
        } else {
          const text = this.#line(
            full,
            node,
            "a proxy count or a list of CIDR ranges",
          );
          v.trustProxy = { value: at(node, text), position };
        }
        return;
      }
      case "log-level": {
        const text = this.#line(full, node, `one of ${LOG_LEVELS.join(", ")}`)
          .toLowerCase();
        const level = LOG_LEVELS.find((l) => l === text);
        if (level === undefined) {
          throw new UsageError(
            "out-of-range",
            `Cannot use ${full} "${text}": expected one of ${
              LOG_LEVELS.join(", ")
            }`,
            { position: this.#position(node) },
          );
        }
        v.logLevel = { value: level, position };
        return;
      }
    }
  }

  /** Runs a check shared with the flags; its mistake points at `node`. */
  #at<T>(node: Node | null, check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      throw new UsageError(error.code, error.message, {
        position: this.#position(node),
        cause: error.cause,
      });
    }
  }

  /** The items of a list, resolved. */
  #items(full: string, node: Node | null, expected: string): (Node | null)[] {
    if (node === null || isNullScalar(node)) return [];
    if (!isSeq(node)) throw this.#typeError(full, node, expected);
    return node.items.map((item) => this.#resolve(item as Node | null));
  }

  /** `- match: GLOB` / `cache-control: VALUE` maps, in order. */
  #cacheRules(full: string, node: Node | null): CacheRule[] {
    const expected = "a list of { match, cache-control } maps";
    return this.#items(full, node, expected).map((item) => {
      if (!isMap(item)) throw this.#typeError(full, item, expected);
      let match: string | undefined;
      let cacheControl: string | undefined;
      for (const pair of item.items) {
        const key = this.#keyName(pair.key as Node | null, `${full}.`);
        const value = this.#resolve(pair.value as Node | null);
        if (key === "match") {
          match = this.#line(`${full}.match`, value, "a glob");
        } else if (key === "cache-control") {
          cacheControl = this.#headerValue(`${full}.cache-control`, value);
        } else {
          throw new UsageError(
            "unknown-key",
            `Unknown key "${full}.${key}"${
              didYouMean(key, ["match", "cache-control"])
            }`,
            { position: this.#position(pair.key as Node) },
          );
        }
      }
      if (match === undefined || cacheControl === undefined) {
        throw new UsageError(
          "missing-value",
          `Cannot use ${full}: each rule needs match and cache-control`,
          { position: this.#position(item) },
        );
      }
      const rule = { match, cacheControl };
      return this.#at(item, () => checkRule(full, rule));
    });
  }

  #port(full: string, node: Node | null): number {
    if (
      !isScalar(node) || typeof node.value !== "number" ||
      !Number.isInteger(node.value)
    ) {
      throw this.#typeError(full, node, `an integer from 0 to ${MAX_PORT}`);
    }
    if (node.value < 0 || node.value > MAX_PORT) {
      throw new UsageError(
        "out-of-range",
        `Cannot use ${full} ${node.value}: expected an integer from 0 to ${MAX_PORT}`,
        { position: this.#position(node) },
      );
    }
    return node.value;
  }

  /** A single-line string; a plain number or boolean is taken as written. */
  #line(full: string, node: Node | null, expected: string): string {
    const text = this.#text(node);
    if (text === undefined || text === "" || /[\r\n]/.test(text)) {
      throw this.#typeError(full, node, `${expected} on one line`);
    }
    return text;
  }

  #headerValue(full: string, node: Node | null): string {
    const text = this.#text(node);
    const problem = text === undefined
      ? "expected a string"
      : headerValueProblem(text);
    if (problem) {
      throw new UsageError("wrong-type", `Cannot use ${full}: ${problem}`, {
        position: this.#position(node),
      });
    }
    return text!;
  }

  #list(full: string, node: Node | null): string[] {
    if (node === null || isNullScalar(node)) return [];
    if (!isSeq(node)) throw this.#typeError(full, node, "a list of file names");
    return node.items.map((item) => {
      const resolved = this.#resolve(item as Node | null);
      const name = this.#line(full, resolved, "a file name");
      if (name.includes("/") || name.startsWith(".")) {
        throw new UsageError(
          "wrong-type",
          `Cannot use ${full} "${name}": expected a plain file name`,
          {
            position: this.#position(resolved),
          },
        );
      }
      return name;
    });
  }

  #headerMap(
    full: string,
    node: Node | null,
    target: Located<[string, string]>[],
  ): void {
    if (node === null || isNullScalar(node)) return;
    if (!isMap(node)) {
      throw this.#typeError(full, node, "a map of header names to values");
    }
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const name = this.#text(this.#resolve(keyNode));
      const position = this.#position(keyNode);
      const nameProblem = name === undefined
        ? "expected a header name"
        : headerNameProblem(name);
      if (nameProblem) {
        throw new UsageError(
          "bad-header",
          `Cannot use ${full}: ${nameProblem}`,
          { position },
        );
      }
      const value = this.#headerValue(
        `${full}.${name}`,
        this.#resolve(pair.value as Node | null),
      );
      target.push({ value: [name!, value], position });
    }
  }

  /** The text of a scalar: strings as they are, numbers and booleans as written. */
  #text(node: Node | null): string | undefined {
    if (!isScalar(node)) return undefined;
    if (typeof node.value === "string") return node.value;
    if (typeof node.value === "number" || typeof node.value === "boolean") {
      const source = (node as Scalar & { source?: string }).source;
      return typeof source === "string" ? source : String(node.value);
    }
    return undefined;
  }

  #keyName(node: Node | null, prefix: string): string {
    const key = this.#resolve(node);
    const text = this.#text(key);
    if (text === undefined) {
      throw new UsageError(
        "wrong-type",
        `Cannot use a key under "${
          prefix || "the top level"
        }": expected a name`,
        {
          position: this.#position(node),
        },
      );
    }
    return text;
  }

  #resolve(node: Node | null | undefined): Node | null {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      return (node.resolve(this.#doc) as Node | undefined) ?? null;
    }
    return node;
  }

  #position(node: Node | null | undefined): SourcePosition {
    return this.#where((this.#aliasSite ?? node)?.range?.[0] ?? 0);
  }

  #typeError(full: string, node: Node | null, expected: string): UsageError {
    return new UsageError(
      "wrong-type",
      `Cannot use ${full}: expected ${expected}, got ${describe(node)}`,
      {
        position: this.#position(node),
      },
    );
  }
}

function isNullScalar(node: Node): boolean {
  return isScalar(node) && node.value === null;
}

function describe(node: Node | null): string {
  if (node === null || isNullScalar(node)) return "nothing";
  if (isMap(node)) return "a map";
  if (isSeq(node)) return "a list";
  if (isScalar(node)) {
    const value = node.value;
    if (typeof value === "string") {
      return `"${value.length > 40 ? value.slice(0, 40) + "…" : value}"`;
    }
    return `${typeof value} ${String(value)}`;
  }
  return "an unsupported value";
}
