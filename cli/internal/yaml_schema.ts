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
import { type SourcePosition, UsageError, YamlSyntaxError } from "../errors.ts";
import { LOG_LEVELS, type LogLevel } from "./log_level.ts";
import { MAX_PORT, parseDrainTimeout, parseTrustProxy } from "./args.ts";
import type { TrustProxy } from "@org/httpd";
import { headerNameProblem, headerValueProblem } from "./header_field.ts";
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
  | "trust-proxy";

/** The schema of the configuration file: section → key → kind. */
const SCHEMA: Record<string, Record<string, Kind>> = {
  server: {
    port: "port",
    bind: "host",
    "drain-timeout": "duration",
    "trust-proxy": "trust-proxy",
  },
  static: {
    root: "path",
    fallback: "path",
    "spa-fallback": "path",
    "index-files": "string-list",
    "cache-control": "header-value",
    gzip: "bool",
  },
  headers: { always: "header-map", staging: "header-map" },
  logging: { level: "log-level", "access-log": "bool" },
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
      case "port":
        v.port = { value: this.#port(full, node), position };
        return;
      case "host":
        v.bind = {
          value: this.#line(full, node, "an IP address or host name"),
          position,
        };
        return;
      case "path": {
        const value = this.#line(full, node, "a path");
        if (full === "static.root") v.root = { value, position };
        else if (full === "static.fallback") v.fallback = { value, position };
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
        if (full === "static.gzip") v.gzip = { value: node.value, position };
        else v.accessLog = { value: node.value, position };
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
          v.drainTimeoutMs = {
            value: parseDrainTimeout(full, text ?? ""),
            position,
          };
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
