/**
 * The command line of `httpd-cli serve` and `httpd-cli run`: the flags of
 * the settings table (`settings.ts`), parsed with `node:util` `parseArgs`
 * and checked one by one, so a mistake names its flag.
 *
 * @module
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { UsageError } from "../errors.ts";
import type { Found, SourceValues } from "./merge.ts";
import {
  type Command,
  SETTING_IDS,
  type SettingId,
  settingOf,
  takes,
} from "./settings.ts";
import { didYouMean } from "./suggest.ts";

/** What the command line says. */
export interface CommandLine {
  /** The command. */
  command: Command;
  /** The module `run` serves, as typed (a path or a URL). */
  module?: string;
  /** The settings the flags (and the `serve DIR` argument) name. */
  values: SourceValues;
  /** `-h`, `--help`. */
  help: boolean;
  /** `-V`, `--version`. */
  version: boolean;
}

/** A flag as `parseArgs` reports it, and the setting it sets. */
interface FlagSpec {
  id: SettingId;
  /** `--no-<flag>`. */
  negated: boolean;
}

/** The flags of every setting, and `--help` and `--version`. */
const FLAGS = new Map<string, FlagSpec>();
const OPTIONS: ParseArgsOptionsConfig = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
};
for (const id of SETTING_IDS) {
  const row = settingOf(id);
  if (row.flag === undefined) continue;
  // A flag whose value is optional, or written as the words after it, is
  // a boolean for parseArgs: `--metrics DIR` leaves DIR an argument, and
  // `=VALUE` arrives inline.
  const takesText = !row.type.switch && row.bare === undefined && !row.words;
  OPTIONS[row.flag] = {
    type: takesText ? "string" : "boolean",
    ...(row.short ? { short: row.short } : {}),
  };
  FLAGS.set(row.flag, { id, negated: false });
  if (row.type.switch || row.off !== undefined) {
    OPTIONS[`no-${row.flag}`] = { type: "boolean" };
    FLAGS.set(`no-${row.flag}`, { id, negated: true });
  }
}

/** Every long flag `command` takes, as typed: `--port`. */
function flagNames(command: Command): string[] {
  return [
    ...[...FLAGS].filter(([, spec]) => takes(spec.id, command)).map((
      [name],
    ) => `--${name}`),
    "--help",
    "--version",
  ];
}

/**
 * Parses the arguments after `serve`. A later flag overrides an earlier
 * one (`--gzip --no-gzip` is off); a repeatable one (`--header`)
 * accumulates. One argument is taken as the root directory, like
 * `http-server DIR`.
 *
 * @param args The arguments.
 * @returns What they say.
 * @throws {UsageError} For the first mistake, naming its flag.
 */
export function parseServeArgs(args: readonly string[]): CommandLine {
  return parseCommandLine(args, "serve");
}

/**
 * Parses the arguments after `run`: the flags `run` takes (not those for
 * a directory of files) and one argument, the module, which is required
 * unless `--help` or `--version` is asked for.
 *
 * @param args The arguments.
 * @returns What they say.
 * @throws {UsageError} For the first mistake, naming its flag.
 */
export function parseRunArgs(args: readonly string[]): CommandLine {
  const line = parseCommandLine(args, "run");
  if (line.module === undefined && !line.help && !line.version) {
    throw new UsageError(
      "missing-value",
      "Cannot run: expected a module whose default export has a fetch function, such as httpd-cli run ./main.ts",
    );
  }
  return line;
}

/** A module URL (`https://host/app.ts`) rather than a CORS origin. */
function looksLikeModuleUrl(word: string): boolean {
  return /^https?:\/\/[^/]+\/./i.test(word);
}

function parseCommandLine(
  args: readonly string[],
  command: Command,
): CommandLine {
  const run = command === "run";
  const { tokens } = parseArgs({
    args: [...args],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const line: CommandLine = {
    command,
    values: {},
    help: false,
    version: false,
  };
  const values = line.values as Record<SettingId, Found<unknown> | undefined>;
  const set = (id: SettingId, name: string, value: unknown) => {
    const { type } = settingOf(id);
    const before = values[id];
    values[id] = {
      value: before && type.concat
        ? type.concat(before.value, value, name)
        : value,
      origin: { source: "flag", name },
    };
  };
  let positional: string | undefined;
  // The flag whose values are the words after it (`--cors A B`), while
  // they last.
  let words: { id: SettingId; name: string; taken: string[] } | undefined;
  const endWords = () => {
    if (words === undefined) return;
    const row = settingOf(words.id);
    set(
      words.id,
      words.name,
      words.taken.length === 0
        ? row.bare
        : row.type.parse!(words.name, words.taken.join(",")),
    );
    words = undefined;
  };
  for (const token of tokens) {
    if (token.kind === "positional" && words !== undefined) {
      const row = settingOf(words.id);
      if (
        row.type.word?.(token.value) &&
        !(run && looksLikeModuleUrl(token.value))
      ) {
        words.taken.push(...token.value.split(","));
        continue;
      }
    }
    endWords();
    if (token.kind === "option-terminator") continue;
    if (token.kind === "positional") {
      if (positional !== undefined) {
        throw new UsageError(
          "unexpected-argument",
          `Cannot use argument "${token.value}": only one ${
            run ? "module" : "directory"
          } may be given`,
        );
      }
      positional = token.value;
      continue;
    }
    if (token.name === "help" || token.name === "version") {
      line[token.name] = true;
      continue;
    }
    const spec = Object.hasOwn(OPTIONS, token.name)
      ? FLAGS.get(token.name)
      : undefined;
    if (spec === undefined) {
      throw new UsageError(
        "unknown-flag",
        `Unknown flag "${token.rawName}"${
          didYouMean(token.rawName, flagNames(command))
        }`,
      );
    }
    const row = settingOf(spec.id);
    const name = `--${spec.negated ? "no-" : ""}${row.flag}`;
    if (!takes(spec.id, command)) {
      throw new UsageError(
        "wrong-command",
        `Cannot use ${token.rawName} with ${command}: it is for serving a directory (httpd-cli serve); the module answers every request`,
      );
    }
    if (row.type.switch || spec.negated) {
      if (token.inlineValue) {
        throw new UsageError(
          "unexpected-value",
          `Cannot use ${name}: it takes no value, got "${token.value}"${
            switchFix(
              row.flag!,
              spec.negated,
              token.value ?? "",
              row.type.switch === true,
            )
          }`,
        );
      }
      set(spec.id, name, spec.negated ? row.off ?? false : true);
      continue;
    }
    if (row.bare !== undefined || row.words) {
      if (token.inlineValue) {
        set(spec.id, name, row.type.parse!(name, token.value ?? ""));
      } else if (row.words) {
        words = { id: spec.id, name, taken: [] };
      } else {
        set(spec.id, name, row.bare);
      }
      continue;
    }
    const value = token.value;
    if (
      value === undefined ||
      (!token.inlineValue && value.startsWith("-") && value !== "-")
    ) {
      throw new UsageError(
        "missing-value",
        `Cannot use ${name}: expected a value ${row.type.metavar}` +
          (value === undefined || row.type.secret
            ? ""
            : ` (write ${name}=${value} for a value starting with "-")`),
      );
    }
    set(spec.id, name, row.type.parse!(name, value));
  }
  endWords();
  if (positional === undefined) return line;
  if (run) {
    line.module = positional;
    return line;
  }
  const root = values.root;
  if (root !== undefined) {
    throw new UsageError(
      "conflict",
      `Cannot use argument "${positional}" together with ${root.origin.name} "${root.value}"`,
    );
  }
  values.root = {
    value: settingOf("root").type.parse!(
      `argument "${positional}"`,
      positional,
    ),
    origin: { source: "argument", name: `argument "${positional}"` },
  };
  return line;
}

/**
 * How to write what `--flag=VALUE` meant, for a flag that takes no value:
 * `--dir-listing=false` is `--no-dir-listing`.
 */
function switchFix(
  flag: string,
  negated: boolean,
  value: string,
  isSwitch: boolean,
): string {
  const word = value.trim().toLowerCase();
  const yes = ["true", "yes", "on", "1"].includes(word);
  const no = ["false", "no", "off", "0"].includes(word);
  if (!isSwitch) return yes ? ` (write --no-${flag})` : "";
  if (!yes && !no) return ` (write --${flag} or --no-${flag})`;
  return yes !== negated ? ` (write --${flag})` : ` (write --no-${flag})`;
}
