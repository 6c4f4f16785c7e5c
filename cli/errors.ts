/**
 * The errors of the launcher: a usage mistake (exit status 2), a YAML
 * syntax error with its position, an address that cannot be bound (1), and
 * a module `run` cannot use (2 or 1).
 *
 * @module
 */

/** What went wrong, as a stable code tests and scripts can match on. */
export type UsageErrorCode =
  | "unknown-flag"
  | "missing-value"
  | "unexpected-value"
  | "unexpected-argument"
  | "unknown-command"
  | "unknown-key"
  | "wrong-type"
  | "out-of-range"
  | "conflict"
  | "missing-root"
  | "missing-file"
  | "unreadable-file"
  | "bad-header"
  | "bad-workers"
  | "wrong-command";

/** Where in a YAML file a mistake is, 1-based. */
export interface SourcePosition {
  /** The file as the user named it. */
  file: string;
  /** The line, from 1. */
  line: number;
  /** The column, from 1. */
  column: number;
}

/** Options of {@linkcode UsageError}. */
export interface UsageErrorOptions {
  /** The position in the YAML file, when the mistake is in one. */
  position?: SourcePosition;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * Joins mistakes found together (every mistake of a YAML file) into one
 * error to throw: the first one when it is alone, else the first one
 * carrying all of them in `problems`.
 */
function gather<E extends { problems: readonly E[] }>(
  problems: readonly E[],
  copy: (first: E, all: readonly E[]) => E,
): E {
  if (problems.length === 0) {
    throw new RangeError("Cannot gather mistakes: there are none");
  }
  return problems.length === 1 ? problems[0]! : copy(problems[0]!, problems);
}

/**
 * A mistake in the command line, the environment or the YAML file. The
 * launcher prints {@linkcode UsageError.line} on standard error and exits
 * with status {@linkcode UsageError.exitCode} (2).
 *
 * @example Format a mistake for standard error
 * ```ts
 * import { UsageError } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const error = new UsageError("wrong-type", 'Cannot use server.port: expected an integer, got "abc"', {
 *   position: { file: "site.yaml", line: 2, column: 9 },
 * });
 * assert.equal(error.code, "wrong-type");
 * assert.equal(error.exitCode, 2);
 * assert.match(error.line, /^httpd-cli: site\.yaml:2:9: /);
 * ```
 */
export class UsageError extends Error {
  /** The stable code of the mistake. */
  readonly code: UsageErrorCode;
  /** The YAML position, when the mistake is in a file. */
  readonly position: SourcePosition | undefined;
  /** The process exit status for a usage mistake. */
  readonly exitCode: number = 2;
  #problems: readonly UsageError[] = [this];

  /**
   * Creates a usage error.
   *
   * @param code The stable code.
   * @param message What is wrong, naming the flag or key and what was expected.
   * @param options The position and cause.
   */
  constructor(
    code: UsageErrorCode,
    message: string,
    options?: UsageErrorOptions,
  ) {
    super(
      message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "UsageError";
    this.code = code;
    this.position = options?.position;
  }

  /**
   * Every mistake this error reports, in order: itself alone, or, for a
   * YAML file with several mistakes, each of them (this error then has the
   * first one's code, message and position). See {@linkcode UsageError.all}.
   */
  get problems(): readonly UsageError[] {
    return this.#problems;
  }

  /**
   * Reports several mistakes at once: the first one when it is alone, else
   * an error with the first one's code, message and position whose
   * {@linkcode UsageError.line} has one line per mistake.
   *
   * @param problems The mistakes, in the order they are written.
   * @returns The error to throw.
   * @throws {RangeError} When `problems` is empty.
   *
   * @example Two mistakes of one file
   * ```ts
   * import { UsageError } from "@org/httpd-cli";
   * import assert from "node:assert/strict";
   *
   * const at = (line: number) => ({ position: { file: "site.yaml", line, column: 3 } });
   * const error = UsageError.all([
   *   new UsageError("unknown-key", 'Unknown key "server.prot"', at(2)),
   *   new UsageError("wrong-type", "Cannot use static.gzip: expected true or false", at(4)),
   * ]);
   * assert.equal(error.problems.length, 2);
   * assert.equal(error.line.split("\n").length, 2);
   * assert.equal(error.position?.line, 2);
   * ```
   */
  static all(problems: readonly UsageError[]): UsageError {
    return gather(problems, (first, all) => {
      const error = new UsageError(first.code, first.message, {
        ...(first.position ? { position: first.position } : {}),
        cause: first.cause,
      });
      error.#problems = all;
      return error;
    });
  }

  /** What is written to standard error: one line per mistake. */
  get line(): string {
    return this.problems.map((p) => formatLine(p.message, p.position))
      .join("\n");
  }
}

/**
 * Where the server tried to listen, for {@linkcode ListenError.from}.
 *
 * @example The options of `Deno.listen` fit
 * ```ts
 * import { type ListenAddress, ListenError } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * using first = Deno.listen({ hostname: "127.0.0.1", port: 0 });
 * const address: ListenAddress = { hostname: "127.0.0.1", port: first.addr.port };
 * let error: ListenError | undefined;
 * try {
 *   Deno.listen(address).close();
 * } catch (cause) {
 *   error = ListenError.from(cause, address);
 * }
 * assert.equal(error?.code, "addr-in-use");
 * ```
 */
export interface ListenAddress {
  /** The address to bind, IPv4 or IPv6, such as `0.0.0.0` or `::1`. */
  hostname: string;
  /** The TCP port. */
  port: number;
  /**
   * The flag that chose the port, such as `--port`: a port in use names it
   * in the likely fix.
   */
  setting?: string;
}

/** Why the server could not listen. */
export type ListenErrorCode =
  | "addr-in-use"
  | "addr-not-available"
  | "permission-denied"
  | "other";

/**
 * The server could not bind its address. The launcher prints
 * {@linkcode ListenError.line} and exits with status
 * {@linkcode ListenError.exitCode} (1): the configuration is valid, the
 * machine refused it.
 *
 * @example Name the address
 * ```ts
 * import { ListenError } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const error = ListenError.from(new Deno.errors.AddrInUse("in use"), {
 *   hostname: "127.0.0.1",
 *   port: 8080,
 *   setting: "--port",
 * });
 * assert.equal(error.code, "addr-in-use");
 * assert.equal(
 *   error.line,
 *   "httpd-cli: Cannot listen on 127.0.0.1:8080: address already in use; " +
 *     "stop the process listening there, or choose another port with --port (0 picks a free one)",
 * );
 * ```
 */
export class ListenError extends Error {
  /** Why. */
  readonly code: ListenErrorCode;
  /** The process exit status when listening fails. */
  readonly exitCode: number = 1;

  /**
   * Creates a listen error.
   *
   * @param code Why.
   * @param message The message, naming the address.
   * @param options The cause.
   */
  constructor(code: ListenErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ListenError";
    this.code = code;
  }

  /**
   * Describes a failed `Deno.listen` for an address.
   *
   * @param error What `Deno.listen` threw.
   * @param address The address and port it was asked to listen on (the
   * options given to `Deno.listen` fit).
   * @returns The listen error.
   *
   * @example An IPv6 address
   * ```ts
   * import { ListenError } from "@org/httpd-cli";
   * import assert from "node:assert/strict";
   *
   * const error = ListenError.from(new Deno.errors.PermissionDenied("no"), {
   *   hostname: "::1",
   *   port: 80,
   * });
   * assert.equal(error.code, "permission-denied");
   * assert.equal(error.message, "Cannot listen on [::1]:80: permission denied");
   * ```
   */
  static from(error: unknown, address: ListenAddress): ListenError {
    const { hostname, port: number, setting } = address;
    const where = `${
      hostname.includes(":") ? `[${hostname}]` : hostname
    }:${number}`;
    const [code, reason]: [ListenErrorCode, string] =
      error instanceof Deno.errors.AddrInUse
        ? ["addr-in-use", `address already in use; ${inUseFix(setting)}`]
        : error instanceof Deno.errors.AddrNotAvailable
        ? ["addr-not-available", "address not available on this machine"]
        : error instanceof Deno.errors.PermissionDenied
        ? ["permission-denied", "permission denied"]
        : ["other", error instanceof Error ? error.message : String(error)];
    return new ListenError(code, `Cannot listen on ${where}: ${reason}`, {
      cause: error,
    });
  }

  /** The one line written to standard error. */
  get line(): string {
    return formatLine(this.message, undefined);
  }
}

/** The likely fix of a port in use. */
function inUseFix(setting: string | undefined): string {
  return `stop the process listening there, or choose another port${
    setting ? ` with ${setting}` : ""
  } (0 picks a free one)`;
}

/**
 * A YAML configuration file that cannot be parsed, with the position of
 * each error. The launcher prints {@linkcode YamlSyntaxError.line} and
 * exits with status 2, like a {@linkcode UsageError}.
 *
 * @example Positions are 1-based
 * ```ts
 * import { YamlSyntaxError } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const error = new YamlSyntaxError("Cannot parse the YAML file: bad indentation", {
 *   file: "site.yaml",
 *   line: 3,
 *   column: 1,
 * });
 * assert.ok(error instanceof SyntaxError);
 * assert.equal(error.code, "yaml-syntax");
 * assert.equal(error.line, "httpd-cli: site.yaml:3:1: Cannot parse the YAML file: bad indentation");
 * ```
 */
export class YamlSyntaxError extends SyntaxError {
  /** Where the parser stopped. */
  readonly position: SourcePosition;
  /** The stable code of the mistake. */
  readonly code = "yaml-syntax" as const;
  /** The process exit status for a usage mistake. */
  readonly exitCode: number = 2;
  #problems: readonly YamlSyntaxError[] = [this];

  /**
   * Creates a YAML syntax error.
   *
   * @param message What the parser found.
   * @param position Where.
   */
  constructor(message: string, position: SourcePosition) {
    super(message);
    this.name = "YamlSyntaxError";
    this.position = position;
  }

  /**
   * Every syntax error of the file, in order: itself alone, or each of
   * them (see {@linkcode YamlSyntaxError.all}).
   */
  get problems(): readonly YamlSyntaxError[] {
    return this.#problems;
  }

  /**
   * Reports several syntax errors at once, as {@linkcode UsageError.all}
   * does.
   *
   * @param problems The errors, in the order of the file.
   * @returns The first one when it is alone, else one that lists them all.
   * @throws {RangeError} When `problems` is empty.
   *
   * @example Two duplicate keys
   * ```ts
   * import { YamlSyntaxError } from "@org/httpd-cli";
   * import assert from "node:assert/strict";
   *
   * const at = (line: number) => ({ file: "site.yaml", line, column: 3 });
   * const error = YamlSyntaxError.all([
   *   new YamlSyntaxError("Cannot parse the YAML file: Map keys must be unique", at(3)),
   *   new YamlSyntaxError("Cannot parse the YAML file: Map keys must be unique", at(4)),
   * ]);
   * assert.match(error.line, /^httpd-cli: site\.yaml:3:3: .*\nhttpd-cli: site\.yaml:4:3: /);
   * ```
   */
  static all(problems: readonly YamlSyntaxError[]): YamlSyntaxError {
    return gather(problems, (first, all) => {
      const error = new YamlSyntaxError(first.message, first.position);
      error.#problems = all;
      return error;
    });
  }

  /** What is written to standard error: one line per syntax error. */
  get line(): string {
    return this.problems.map((p) => formatLine(p.message, p.position))
      .join("\n");
  }
}

/**
 * Why the module given to `httpd-cli run` cannot be used: `unloadable` when
 * it could not be loaded (a syntax error, an import that does not resolve),
 * so none of its code ran; `threw` when its top-level code threw.
 */
export type ModuleErrorCode = "unloadable" | "threw";

/**
 * The module given to `httpd-cli run` failed to load. The launcher prints
 * {@linkcode ModuleError.line}: one line naming the module and the error,
 * followed by the rest of the error's text (the code frame of a syntax
 * error, the stack of a thrown error), and exits with status
 * {@linkcode ModuleError.exitCode}: 2 when the module could not be loaded
 * (nothing of it ran, like a usage mistake), 1 when its code threw.
 *
 * @example A module that threw
 * ```ts
 * import { ModuleError } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const error = new ModuleError("threw", "Cannot run ./main.ts: it threw Error: no DATABASE_URL");
 * assert.equal(error.exitCode, 1);
 * assert.equal(error.line, "httpd-cli: Cannot run ./main.ts: it threw Error: no DATABASE_URL");
 * assert.equal(new ModuleError("unloadable", "Cannot run ./main.ts: ...").exitCode, 2);
 * ```
 */
export class ModuleError extends Error {
  /** What went wrong. */
  readonly code: ModuleErrorCode;
  /** The process exit status: 2 for `unloadable`, 1 for `threw`. */
  readonly exitCode: number;

  /**
   * Creates a module error.
   *
   * @param code What went wrong.
   * @param message The text, naming the module; its first line stands on
   * its own, more lines may follow.
   * @param options The cause.
   */
  constructor(code: ModuleErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ModuleError";
    this.code = code;
    this.exitCode = code === "unloadable" ? 2 : 1;
  }

  /** What is written to standard error: its first line, then the error's own lines. */
  get line(): string {
    return formatLine(this.message, undefined);
  }
}

function formatLine(message: string, p: SourcePosition | undefined): string {
  const where = p ? `${p.file}:${p.line}:${p.column}: ` : "";
  return `httpd-cli: ${where}${message}`;
}
