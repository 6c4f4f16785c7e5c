/**
 * The environment variables of the settings table (`settings.ts`): each
 * row's `env`, read and checked like its flag. An unset or empty variable
 * says nothing.
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import type { EnvReader, Found, SourceValues } from "./merge.ts";
import {
  type Command,
  SETTING_IDS,
  type SettingId,
  settingOf,
  takes,
} from "./settings.ts";

/** What the environment says, and every mistake in it. */
export interface EnvSettings {
  /** The settings the variables name. */
  values: SourceValues;
  /** One error per variable that cannot be used. */
  problems: UsageError[];
}

/**
 * Reads every variable of the table.
 *
 * @param env Reads one variable.
 * @param command The command: `run` refuses variables for a directory of
 * files.
 * @returns The values, and the mistakes (all of them).
 */
export function readEnvSettings(env: EnvReader, command: Command): EnvSettings {
  const values: Partial<Record<SettingId, Found<unknown>>> = {};
  const problems: UsageError[] = [];
  for (const id of SETTING_IDS) {
    const row = settingOf(id);
    if (row.env === undefined || row.type.parse === undefined) continue;
    const raw = env(row.env);
    const text = raw?.trim();
    if (text === undefined || text === "") continue;
    if (!takes(id, command)) {
      problems.push(
        new UsageError(
          "wrong-command",
          `Cannot use ${row.env}=${raw} with ${command}: it is for serving a directory (httpd-cli serve)`,
        ),
      );
      continue;
    }
    try {
      values[id] = {
        value: row.type.parse(row.env, text),
        origin: { source: "env", name: row.env },
      };
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push(error);
    }
  }
  return { values: values as SourceValues, problems };
}
