/**
 * Merges what the sources say about each setting of the table, with the
 * same precedence for all: flag > environment > YAML > default. Pure: no
 * file system.
 *
 * @module
 */
import type { SourcePosition } from "../errors.ts";
import {
  type Command,
  defaultOf,
  SETTING_IDS,
  type SettingId,
  settingOf,
  type ValueOf,
} from "./settings.ts";

/** Reads one environment variable. */
export type EnvReader = (name: string) => string | undefined;

/**
 * Where a value came from: the command line (a flag, or the argument
 * `serve DIR`), the environment, the YAML file, or the default.
 */
export type Source = "flag" | "argument" | "env" | "yaml" | "default";

/** Where a value came from, for messages. */
export interface Origin {
  /** The kind of source. */
  source: Source;
  /** How messages name it: `--root`, `SERVICE_ROOT`, `static.root`, `argument "www"`. */
  name: string;
  /** The place in the YAML file, for a value from it. */
  position?: SourcePosition;
}

/** A value a source gave, and where. */
export interface Found<T> {
  /** The value, checked. */
  value: T;
  /** Where it was written. */
  origin: Origin;
}

/** What one source says: the settings it names. */
export type SourceValues = {
  [K in SettingId]?: Found<Exclude<ValueOf<K>, undefined>>;
};

/** The rank of a source: lower wins. */
export function rank(source: Source): number {
  return ["argument", "flag", "env", "yaml", "default"].indexOf(source);
}

/** The inputs of {@linkcode mergeSettings}. */
export interface MergeInput {
  /** The command, for defaults that depend on it. */
  command: Command;
  /** The command line's values. */
  flags: SourceValues;
  /** The environment's values. */
  env: SourceValues;
  /** The YAML file's values. */
  yaml: SourceValues;
  /** Where relative paths of flags and variables start. */
  cwd: string;
  /** Where relative paths of the YAML file start: its directory. */
  fileDir: string;
}

/** The merged settings: each one's value, where it came from, and what every source said. */
export class Settings {
  #layers: Map<SettingId, Found<unknown>[]>;
  #command: Command;

  /**
   * Wraps merged layers; see {@linkcode mergeSettings}.
   *
   * @param layers Each setting's values, highest precedence first.
   * @param command The command, for defaults.
   */
  constructor(layers: Map<SettingId, Found<unknown>[]>, command: Command) {
    this.#layers = layers;
    this.#command = command;
  }

  /** The command the settings are for. */
  get command(): Command {
    return this.#command;
  }

  /**
   * The value of a setting: the highest source's, all sources' together
   * for a setting that accumulates, or the default.
   */
  value<K extends SettingId>(id: K): ValueOf<K> {
    const layers = this.#layers.get(id) ?? [];
    const row = settingOf(id);
    if (layers.length === 0) return defaultOf(id, this.#command);
    if (!row.accumulate || !row.type.concat) {
      return layers[0]!.value as ValueOf<K>;
    }
    let value = layers[layers.length - 1]!.value;
    for (let i = layers.length - 2; i >= 0; i--) {
      value = row.type.concat(value, layers[i]!.value, layers[i]!.origin.name);
    }
    return value as ValueOf<K>;
  }

  /** Where the value of a setting came from: its highest source, or the default. */
  origin(id: SettingId): Origin {
    const layer = this.#layers.get(id)?.[0];
    if (layer) return layer.origin;
    const row = settingOf(id);
    return {
      source: "default",
      name: row.flag ? `--${row.flag}` : row.yaml ?? row.env ?? id,
    };
  }

  /** Whether a source named the setting. */
  named(id: SettingId): boolean {
    return (this.#layers.get(id)?.length ?? 0) > 0;
  }

  /** What each source said about a setting, highest precedence first. */
  layers<K extends SettingId>(
    id: K,
  ): readonly Found<Exclude<ValueOf<K>, undefined>>[] {
    return (this.#layers.get(id) ?? []) as Found<
      Exclude<ValueOf<K>, undefined>
    >[];
  }
}

/**
 * Merges the sources, making their relative paths absolute: a flag's or
 * variable's from the working directory, the YAML file's from its
 * directory.
 *
 * @param input The sources.
 * @returns The merged settings.
 */
export function mergeSettings(input: MergeInput): Settings {
  const layers = new Map<SettingId, Found<unknown>[]>();
  for (const id of SETTING_IDS) {
    const { type } = settingOf(id);
    const found: Found<unknown>[] = [];
    for (
      const [values, base] of [
        [input.flags, input.cwd],
        [input.env, input.cwd],
        [input.yaml, input.fileDir],
      ] as const
    ) {
      const layer = values[id] as Found<unknown> | undefined;
      if (layer === undefined) continue;
      found.push(
        type.resolve
          ? { value: type.resolve(layer.value, base), origin: layer.origin }
          : layer,
      );
    }
    layers.set(id, found);
  }
  return new Settings(layers, input.command);
}
