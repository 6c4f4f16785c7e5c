/**
 * `deno task build-info`: writes `httpd/build_info.json` with the package
 * version, the short git commit and the build time, read by `BuildInfo`.
 * Fails when the version in `httpd/build_info.ts` (`PACKAGE_VERSION`)
 * differs from the one in `httpd/deno.json`, the single source of truth.
 *
 * @module
 */
import { PACKAGE_VERSION } from "../httpd/build_info.ts";
import { gitCheckoutFacts } from "../httpd/internal/git_facts.ts";

const ROOT = new URL("..", import.meta.url);

/** Where the build facts are written; `BuildInfo` reads it beside itself. */
export const BUILD_INFO_FILE: URL = new URL("httpd/build_info.json", ROOT);

/**
 * Writes the build-info file.
 *
 * @returns The facts written.
 * @throws {Error} When `PACKAGE_VERSION` and `httpd/deno.json` disagree.
 */
export async function writeBuildInfo(): Promise<Record<string, string>> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("httpd/deno.json", ROOT)),
  );
  if (config.version !== PACKAGE_VERSION) {
    throw new Error(
      `Cannot write build info: httpd/deno.json says version ${config.version} but PACKAGE_VERSION in httpd/build_info.ts is ${PACKAGE_VERSION}`,
    );
  }
  const info = {
    version: config.version as string,
    gitCommit: gitCheckoutFacts(ROOT)?.gitCommit ?? "unknown",
    buildTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
  await Deno.writeTextFile(
    BUILD_INFO_FILE,
    JSON.stringify(info, null, 2) + "\n",
  );
  return info;
}

if (import.meta.main) {
  try {
    const info = await writeBuildInfo();
    console.log(`Wrote ${BUILD_INFO_FILE.pathname}: ${JSON.stringify(info)}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(1);
  }
}
