/**
 * Loads the module of `httpd-cli run`: a module `deno serve` would run,
 * whose default export is `{ fetch(request, info), onListen?(addr) }`
 * (`Deno.ServeDefaultExport`).
 *
 * @module
 */
import { relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { FetchFunction } from "@org/httpd";
import { ModuleError, UsageError } from "../errors.ts";

/** What `run` uses of the module's default export. */
export interface RunnableApp {
  /** The module, for messages: `./main.ts`, or its URL. */
  name: string;
  /** Calls the default export's `fetch` (as a method: `this` is the export). */
  fetch: FetchFunction;
  /** Calls the default export's `onListen`, when it has one. */
  onListen?: (addr: Deno.NetAddr) => unknown;
}

/** `scheme:` of a URL, but not a Windows drive letter (`C:`). */
const URL_SCHEME = /^[a-z][a-z0-9+.-]+:/i;

/**
 * Resolves what was typed after `run`: a URL stays as it is (`file:`,
 * `https:`, `jsr:`, ...), a path is resolved against `cwd`.
 *
 * @param specifier The module as typed.
 * @param cwd The directory relative paths start from.
 * @returns The absolute URL.
 */
export function moduleUrl(specifier: string, cwd: string): string {
  if (URL_SCHEME.test(specifier)) return new URL(specifier).href;
  return pathToFileURL(resolve(cwd, specifier)).href;
}

/**
 * Names a module for messages: a file below the working directory as
 * `./path`, any other file by its path, anything else by its URL.
 */
export function moduleName(url: string): string {
  if (!url.startsWith("file:")) return url;
  const path = fileURLToPath(url);
  let cwd: string;
  try {
    cwd = Deno.cwd();
  } catch {
    return path; // No read permission for the working directory.
  }
  const inside = relative(cwd, path);
  return inside === "" || inside.startsWith("..") || inside.startsWith(sep)
    ? path
    : `.${sep}${inside}`;
}

/**
 * Imports the module and checks its default export.
 *
 * @param url The module's absolute URL.
 * @returns Its `fetch` and `onListen`.
 * @throws {UsageError} When the module is not there, or its default export
 * has no `fetch` function (status 2).
 * @throws {ModuleError} When it cannot be loaded (status 2) or its code
 * throws (status 1).
 */
export async function loadApp(url: string): Promise<RunnableApp> {
  const name = moduleName(url);
  let module: Record<string, unknown>;
  try {
    module = await import(url);
  } catch (error) {
    throw importFailure(error, url, name);
  }
  const main = module.default;
  const fetch = isObject(main) ? main.fetch : undefined;
  if (typeof fetch !== "function") {
    throw new UsageError(
      "wrong-type",
      `Cannot run ${name}: its default export has no fetch function (found: ${
        describe(main)
      }); expected export default { fetch(request, info) { ... } }`,
    );
  }
  const app: RunnableApp = {
    name,
    fetch: (request, info) => fetch.call(main, request, info),
  };
  const onListen = isObject(main) ? main.onListen : undefined;
  if (typeof onListen === "function") {
    app.onListen = (addr) => onListen.call(main, addr);
  }
  return app;
}

/**
 * Calls the module's `onListen` with the address, as `deno serve` does
 * once it listens; a failure (thrown or rejected) is reported, and the
 * server keeps serving.
 *
 * @param app The module.
 * @param addr The address listened on.
 * @param onError Told what went wrong, in one line.
 */
export function callOnListen(
  app: RunnableApp,
  addr: Deno.NetAddr,
  onError: (line: string) => void,
): void {
  if (app.onListen === undefined) return;
  const report = (error: unknown) =>
    onError(
      `httpd-cli: The onListen of ${app.name} failed: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  try {
    const result = app.onListen(addr);
    if (result instanceof Promise) result.catch(report);
  } catch (error) {
    report(error);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (typeof value === "object" && value !== null) ||
    typeof value === "function";
}

/** Escape sequences that color Deno's module errors in a terminal. */
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Explains a failed `import()`: the module itself is missing (usage, 2);
 * it could not be loaded (a syntax error, an import that does not resolve:
 * none of its code ran, 2); or its code threw (1).
 */
function importFailure(
  error: unknown,
  url: string,
  name: string,
): UsageError | ModuleError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error instanceof Error ? error.message : String(error))
    .replace(ANSI, "");
  if (code === "ERR_MODULE_NOT_FOUND") {
    if (message.trimEnd() === `Module not found "${url}".`) {
      return new UsageError(
        "missing-file",
        `Cannot run ${name}: no such module`,
        { cause: error },
      );
    }
    return new ModuleError("unloadable", `Cannot run ${name}: ${message}`, {
      cause: error,
    });
  }
  const detail = error instanceof Error
    ? (error.stack ?? `${error.name}: ${error.message}`).replace(ANSI, "")
    : `the value ${describe(error)}`;
  return new ModuleError("threw", `Cannot run ${name}: it threw ${detail}`, {
    cause: error,
  });
}

/** Describes a value for a message, in a few words. */
function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "function") {
    return value.name ? `function ${value.name}` : "a function";
  }
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    if ("fetch" in record) return `fetch is ${describe(record.fetch)}`;
    const keys = Object.keys(record);
    if (keys.length === 0) return "an object without keys";
    const shown = keys.slice(0, 5).join(", ");
    return `an object with keys ${shown}${keys.length > 5 ? ", ..." : ""}`;
  }
  if (typeof value === "string") {
    return `string "${value.length > 40 ? value.slice(0, 40) + "…" : value}"`;
  }
  return `${typeof value} ${String(value)}`;
}
