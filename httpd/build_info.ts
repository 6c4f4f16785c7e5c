/**
 * Build identification: what the `Server` and `X-Service-Build` headers say.
 *
 * @module
 */

import { gitCheckoutFacts } from "./internal/git_facts.ts";

/** The product token of the `Server` header. */
export const PRODUCT_TOKEN = "httpd";
/** The package version, used when no build-info file is present. */
export const PACKAGE_VERSION = "0.2.0";
/** The value used for a fact no build-info file provided. */
export const UNKNOWN = "unknown";

/** The fields of a build-info file, as `deno task build-info` writes them. */
export interface BuildInfoFields {
  /** The build version, such as `0.2.0`. */
  version: string;
  /** The short source-control hash. */
  gitCommit: string;
  /** The ISO-8601 UTC time of the build. */
  buildTimestamp: string;
}

/**
 * Facts about the running build, read once, from the first source that has
 * them:
 *
 * 1. the JSON file named by the `HTTPD_BUILD_INFO` environment variable;
 * 2. `build_info.json` beside this module, which `deno task build-info`
 *    writes and `deno task release` publishes with the package;
 * 3. the git checkout this module runs from (a clone running
 *    `deno task serve`): the short commit, with `-dirty` when files differ
 *    from it, and the commit's time. Only when git may be run without a
 *    prompt (`--allow-run` covers `git`).
 *
 * When none of them answers (a copied folder without git, no permission),
 * the honest fallbacks are the package version and `unknown`; nothing is
 * ever invented.
 *
 * @example Read the current build's facts
 * ```ts
 * import { BuildInfo } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const info = BuildInfo.current();
 * assert.ok(info.serverHeader.startsWith(`httpd/${info.version}+${info.gitCommit}`));
 * ```
 */
export class BuildInfo {
  static #current: BuildInfo | undefined;

  /** The build version. */
  readonly version: string;
  /** The short source-control hash, or `unknown`. */
  readonly gitCommit: string;
  /** The ISO-8601 UTC build time, or `unknown`. */
  readonly buildTimestamp: string;
  /** The version of the Deno runtime running the server. */
  readonly runtimeVersion: string;

  /**
   * Creates build facts.
   *
   * @param fields Version, commit and timestamp.
   */
  constructor(fields: BuildInfoFields) {
    this.version = fields.version;
    this.gitCommit = fields.gitCommit;
    this.buildTimestamp = fields.buildTimestamp;
    this.runtimeVersion = Deno.version.deno;
  }

  /**
   * The header value `<product>/<version>+<commit> (<timestamp>)`, sent as
   * `Server` and `X-Service-Build`.
   */
  get serverHeader(): string {
    return `${PRODUCT_TOKEN}/${this.version}+${this.gitCommit} (${this.buildTimestamp})`;
  }

  /**
   * Returns the facts of the running build, reading the file on first use.
   *
   * @returns The build facts.
   *
   * @example Facts are read once
   * ```ts
   * import { BuildInfo } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(BuildInfo.current(), BuildInfo.current());
   * ```
   */
  static current(): BuildInfo {
    return BuildInfo.#current ??= BuildInfo.load();
  }

  /**
   * Reads build facts from a file, falling back field by field.
   *
   * @param path The JSON file; default `HTTPD_BUILD_INFO` or the file beside
   * this module.
   * @returns The build facts.
   *
   * @example A missing file gives the fallbacks
   * ```ts
   * import { BuildInfo } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const info = BuildInfo.load("/nonexistent/build_info.json");
   * assert.equal(info.gitCommit, "unknown");
   * ```
   */
  static load(path?: string | URL): BuildInfo {
    const fields: BuildInfoFields = {
      version: PACKAGE_VERSION,
      gitCommit: UNKNOWN,
      buildTimestamp: UNKNOWN,
    };
    const explicit = path ?? envPath();
    const file = explicit ?? new URL("./build_info.json", import.meta.url);
    const data = readJson(file);
    if (data !== undefined) {
      for (const key of ["version", "gitCommit", "buildTimestamp"] as const) {
        const value = data[key];
        if (typeof value === "string" && value !== "") fields[key] = value;
      }
    } else if (explicit === undefined) {
      const checkout = gitCheckoutFacts(new URL(".", import.meta.url));
      if (checkout) {
        fields.gitCommit = checkout.gitCommit;
        fields.buildTimestamp = checkout.buildTimestamp;
      }
    }
    return new BuildInfo(fields);
  }
}

/** Reads a JSON object, or `undefined` when there is none to read. */
function readJson(file: string | URL): Record<string, unknown> | undefined {
  if (file instanceof URL && file.protocol !== "file:") return undefined;
  try {
    const data: unknown = JSON.parse(Deno.readTextFileSync(file));
    return typeof data === "object" && data !== null
      ? data as Record<string, unknown>
      : undefined;
  } catch {
    return undefined; // Missing, unreadable or not JSON.
  }
}

function envPath(): string | undefined {
  try {
    return Deno.env.get("HTTPD_BUILD_INFO") || undefined;
  } catch {
    return undefined; // No env permission.
  }
}
