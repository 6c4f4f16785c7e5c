/**
 * The text of `httpd-cli --help`, `httpd-cli serve --help` and
 * `httpd-cli run --help`, the flags' part written from the settings table.
 *
 * @module
 */
import {
  type Command,
  defaultOf,
  GROUPS,
  SETTING_IDS,
  type SettingId,
  settingOf,
  takes,
} from "./settings.ts";

/** The usage of the whole tool. */
export const MAIN_HELP =
  `httpd-cli: serve a directory or a fetch module over HTTP/1.1 and HTTP/2

Usage:
  httpd-cli serve [DIR] [flags]   Serve a directory (see httpd-cli serve --help)
  httpd-cli run MODULE [flags]    Serve a module's default export { fetch }, as
                                  deno serve does (see httpd-cli run --help)
  httpd-cli index DIR [flags]     Write the static index and .gz/.br/.zst sidecars
  httpd-cli --version             Print the build identification
  httpd-cli --help                Print this help
`;

/** Width of the text, and of the column of flags. */
const WIDTH = 80;
const COLUMN = 25;

/** Wraps `text` to the width, every line after the first indented by `indent`. */
function wrap(text: string, indent: number, first = indent): string[] {
  const lines: string[] = [];
  let line = "";
  let room = WIDTH - first;
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = WIDTH - indent;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** How a row is written in the column of flags: `-p, --port N`. */
function flagColumn(id: SettingId): string {
  const row = settingOf(id);
  if (row.flag === undefined) {
    return row.yaml ?? `${row.env}=${row.type.metavar}`;
  }
  const short = row.short ? `-${row.short}, ` : "    ";
  const long = `--${row.flag}`;
  if (row.type.switch) return `${short}${long}, --no-${row.flag}`;
  if (row.words) return `${short}${long} ${row.type.metavar}`;
  if (row.bare !== undefined) return `${short}${long}[=${row.type.metavar}]`;
  return `${short}${long} ${row.type.metavar}`;
}

/** The sources besides the flag, and the default: `(server.port, SERVICE_PORT; default 8080)`. */
function sources(id: SettingId, command: Command): string {
  const row = settingOf(id);
  const named = [row.yaml, row.env].filter((name) =>
    name !== undefined && !flagColumn(id).startsWith(name)
  );
  const value = defaultOf(id, command);
  const shown = value === undefined || !row.type.show
    ? undefined
    : row.type.show(value);
  const parts = [
    named.join(", "),
    shown === undefined ? "" : `default ${shown}`,
  ].filter((part) => part !== "");
  return parts.length === 0 ? "" : ` (${parts.join("; ")})`;
}

/** One entry: the flag column, then the help wrapped beside it. */
function entry(left: string, help: string): string[] {
  const text = wrap(help, COLUMN);
  const head = `  ${left}`;
  if (head.length <= COLUMN - 2) {
    return [
      head.padEnd(COLUMN) + (text[0] ?? ""),
      ...text.slice(1).map((line) => " ".repeat(COLUMN) + line),
    ];
  }
  return [head, ...text.map((line) => " ".repeat(COLUMN) + line)];
}

/** The flags of `command`, under the headings of the table. */
function settingsHelp(command: Command): string {
  const out: string[] = [];
  for (const group of GROUPS) {
    const ids = SETTING_IDS.filter((id) =>
      settingOf(id).group === group && takes(id, command)
    );
    if (ids.length === 0) continue;
    out.push("", `${group.replace(" (serve only)", "")}:`);
    for (const id of ids) {
      out.push(
        ...entry(flagColumn(id), settingOf(id).help + sources(id, command)),
      );
    }
  }
  out.push(
    "",
    "Other:",
    ...entry(
      "MP_METRICS_TAGS, ...",
      "With --metrics: the mp.metrics.* settings as MicroProfile Config " +
        "names them (MP_METRICS_APPNAME, MP_METRICS_DISTRIBUTION_PERCENTILES, " +
        "...), over microprofile-config.properties beside the --config file " +
        "(or in the working directory)",
    ),
    ...entry("-V, --version", "Print the build identification"),
    ...entry("-h, --help", "Print this help"),
  );
  return out.join("\n");
}

/** The YAML keys `command` takes, section by section, wrapped. */
function yamlKeys(command: Command): string {
  const keys = SETTING_IDS.filter((id) => takes(id, command))
    .map((id) => settingOf(id).yaml)
    .filter((key) => key !== undefined);
  const sections = [...new Set(keys.map((key) => key.split(".")[0]))];
  keys.sort((a, b) =>
    sections.indexOf(a.split(".")[0]) - sections.indexOf(b.split(".")[0])
  );
  return wrap(keys.join(", "), 2, 2).map((line) => `  ${line}`).join("\n");
}

const PRECEDENCE =
  `Precedence: flag > environment variable > YAML file > default. In the
YAML file a list is a YAML list or the flag's text; relative paths start
from the file's directory. Every mistake of the file is listed, one line
each.`;

/** The usage of `serve`. */
export const SERVE_HELP = `Usage: httpd-cli serve [DIR] [flags]

Serves DIR (or --root; default ./public if it exists, else the current
directory). Each flag's YAML key and environment variable are in
parentheses.
${settingsHelp("serve")}

${PRECEDENCE}

YAML keys:
${yamlKeys("serve")}

Mistakes exit with status 2 and one line each on standard error; a port
already in use exits with status 1; a clean stop (SIGINT, SIGTERM) exits
with 0; SIGHUP reloads the htpasswd file and the TLS certificate.
`;

/** The flags `run` refuses, as typed. */
const REFUSED = SETTING_IDS.filter((id) => !takes(id, "run"))
  .map((id) => settingOf(id).flag)
  .filter((flag) => flag !== undefined)
  .map((flag) => `--${flag}`);

/** The usage of `run`. */
export const RUN_HELP = `Usage: httpd-cli run MODULE [flags]

Serves a module as deno serve does: MODULE (a path relative to the current
directory, or a file: or https: URL) is imported, and its default export's
fetch(request, info) answers every request:

  export default {
    fetch(request, info) {
      return new Response(\`Hello, \${info.remoteAddr.hostname}\`);
    },
    onListen(addr) {}, // optional: called once, after the Listening on lines
  };

The launcher's filters run in front of it: access log, metrics, CORS,
headers, compression, authentication. With --workers, each worker imports
the module. Each flag's YAML key and environment variable are in
parentheses.
${settingsHelp("run")}

${PRECEDENCE}

YAML keys:
${yamlKeys("run")}

${
  wrap(
    `The flags for a directory of files (${
      REFUSED.join(", ")
    }), their YAML keys and variables are refused.`,
    0,
    0,
  ).join("\n")
}

Mistakes, a missing module and a default export without fetch exit with
status 2 and one line each on standard error; so does a module that cannot
be loaded (a syntax error, an unresolved import), with the error after the
line. A module whose code throws on import, or a port already in use,
exits with status 1. A clean stop (SIGINT, SIGTERM) exits with 0; SIGHUP
reloads the htpasswd file and the TLS certificate.

The module's imports resolve with the launcher's configuration: use full
specifiers (jsr:, npm:, https:, relative paths) rather than bare names from
the module's own deno.json.
`;
