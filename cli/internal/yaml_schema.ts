/**
 * Reads the YAML configuration file with `npm:yaml` and checks it against
 * the schema the settings table (`settings.ts`) defines: a section per
 * first part of the rows' `yaml` keys. Every mistake of the file is
 * reported, each with its line and column.
 *
 * Anchors, aliases, tags and multi-line scalars are resolved by the YAML
 * parser first; the result is accepted when it fits the schema (a folded
 * `cache-control` that ends with a line break does not fit a header value).
 *
 * @module
 */
import { LineCounter, parseDocument } from "yaml";
import { type SourcePosition, UsageError, YamlSyntaxError } from "../errors.ts";
import type { Found, SourceValues } from "./merge.ts";
import {
  type Command,
  SETTING_IDS,
  type SettingId,
  settingOf,
  takes,
} from "./settings.ts";
import { closest, didYouMean } from "./suggest.ts";
import { yamlText } from "./value_types.ts";
import { YamlNode } from "./yaml_node.ts";

/** Every key of the file, `section.key`, and its setting. */
const KEYS: ReadonlyMap<string, SettingId> = new Map(
  SETTING_IDS.flatMap((id) => {
    const key = settingOf(id).yaml;
    return key === undefined ? [] : [[key, id] as const];
  }),
);

/** The sections: the first parts of the keys. */
const SECTIONS: ReadonlySet<string> = new Set(
  [...KEYS.keys()].map((key) => key.slice(0, key.indexOf("."))),
);

/** Options of {@linkcode parseConfigYaml}. */
export interface ParseYamlOptions {
  /** The command: `run` refuses the keys for a directory of files. Default `serve`. */
  command?: Command;
}

/**
 * Parses and checks a YAML configuration file.
 *
 * @param text The file's text.
 * @param file The file name as the user gave it, for messages.
 * @param options The command.
 * @returns The settings the file names, with their positions.
 * @throws {YamlSyntaxError} When the text is not YAML (every syntax error).
 * @throws {UsageError} For unknown keys and values of the wrong type (every
 * one of them, see {@linkcode UsageError.problems}).
 */
export function parseConfigYaml(
  text: string,
  file: string,
  options: ParseYamlOptions = {},
): SourceValues {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
  });
  const locate = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  if (doc.errors.length > 0) {
    const seen = new Set<string>();
    const errors: YamlSyntaxError[] = [];
    for (const error of doc.errors) {
      const position = locate(error.pos[0]);
      const key = `${position.line}:${position.column}`;
      if (seen.has(key)) continue; // One error's consequences.
      seen.add(key);
      const reason = error.message.split("\n")[0]!.replace(
        / at line \d+, column \d+:?$/,
        "",
      );
      errors.push(
        new YamlSyntaxError(`Cannot parse the YAML file: ${reason}`, position),
      );
    }
    throw YamlSyntaxError.all(errors);
  }
  const root = new YamlNode(doc.contents, { doc, locate });
  const values: Partial<Record<SettingId, Found<unknown>>> = {};
  const problems: UsageError[] = [];
  const command = options.command ?? "serve";
  const attempt = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push(error);
    }
  };
  if (root.kind === "nothing") return {};
  if (root.kind !== "map") {
    throw root.wrongType("the file", "a map of sections");
  }
  for (const { key, value: body } of root.entries()) {
    attempt(() => {
      const section = keyName(key, "");
      if (!SECTIONS.has(section)) {
        throw new UsageError(
          "unknown-key",
          `Unknown key "${section}"${suggestKey(section)}`,
          { position: key.position },
        );
      }
      if (body.kind === "nothing") return;
      if (body.kind !== "map") throw body.wrongType(section, "a map");
      for (const entry of body.entries()) {
        attempt(() => {
          const full = `${section}.${keyName(entry.key, `${section}.`)}`;
          const id = KEYS.get(full);
          if (id === undefined) {
            throw new UsageError(
              "unknown-key",
              `Unknown key "${full}"${suggestKey(full)}`,
              { position: entry.key.position },
            );
          }
          if (!takes(id, command)) {
            throw new UsageError(
              "wrong-command",
              `Cannot use ${full} with ${command}: it is for serving a directory (httpd-cli serve)`,
              { position: entry.key.position },
            );
          }
          values[id] = {
            value: yamlText(settingOf(id).type, full, entry.value),
            origin: {
              source: "yaml",
              name: full,
              position: entry.value.position,
            },
          };
        });
      }
    });
  }
  if (problems.length > 0) throw UsageError.all(problems);
  return values as SourceValues;
}

function keyName(key: YamlNode, prefix: string): string {
  const text = key.text;
  if (text === undefined) {
    throw new UsageError(
      "wrong-type",
      `Cannot use a key under "${prefix || "the top level"}": expected a name`,
      { position: key.position },
    );
  }
  return text;
}

/**
 * Suggests the key meant: the same name in its section (`port` at the top
 * level, or `static.port`, is `server.port`), else the closest key or
 * section, else the key whose name is closest.
 */
function suggestKey(written: string): string {
  const keys = [...KEYS.keys()];
  const leaf = written.slice(written.lastIndexOf(".") + 1);
  const homesOf = (name: string | undefined) =>
    keys.filter((key) => key !== written && key.endsWith(`.${name}`));
  const listed = (homes: string[]) =>
    `: did you mean ${homes.map((key) => `"${key}"`).join(" or ")}?`;
  const same = homesOf(leaf);
  if (same.length > 0) return listed(same);
  const typo = didYouMean(written, [...SECTIONS, ...keys]);
  if (typo !== "") return typo;
  const near = homesOf(
    closest(leaf, keys.map((key) => key.slice(key.indexOf(".") + 1))),
  );
  return near.length > 0 ? listed(near) : "";
}
