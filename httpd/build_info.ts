/**
 * Build identification: what the `Server` and `X-Service-Build` headers say.
 *
 * @module
 */

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
 * Facts about the running build, read once from a JSON file that
 * `deno task build-info` writes beside this module (`build_info.json`) or
 * from the file named by the `HTTPD_BUILD_INFO` environment variable. When no
 * file can be read, the honest fallbacks are the package version and
 * `unknown`; nothing is ever invented.
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
    const file = path ?? envPath() ??
      new URL("./build_info.json", import.meta.url);
    try {
      if (file instanceof URL && file.protocol !== "file:") {
        return new BuildInfo(fields);
      }
      const data = JSON.parse(Deno.readTextFileSync(file));
      for (const key of ["version", "gitCommit", "buildTimestamp"] as const) {
        if (typeof data[key] === "string" && data[key] !== "") {
          fields[key] = data[key];
        }
      }
    } catch {
      // No readable file: keep the honest fallbacks.
    }
    return new BuildInfo(fields);
  }
}

function envPath(): string | undefined {
  try {
    return Deno.env.get("HTTPD_BUILD_INFO") || undefined;
  } catch {
    return undefined; // No env permission.
  }
}
