/**
 * The start-up line naming the build that serves, and where its facts
 * came from.
 *
 * @module
 */
import { BuildInfo } from "@org/httpd";

/**
 * Where `BuildInfo` took its facts from, when the library says (its
 * `source`): a file named to it (`HTTPD_BUILD_INFO`), the git checkout it
 * runs from, the `build_info.json` beside it, or only the package version.
 */
type BuildSource = "named-file" | "git-checkout" | "build-file" | "package";

const FROM: Record<BuildSource, string> = {
  "named-file": "from the file HTTPD_BUILD_INFO names",
  "build-file": "from build_info.json",
  "git-checkout": "from the git checkout",
  package: "from the package version (no build file, no git checkout)",
};

/**
 * The line `serve` and `run` print once listening:
 * `Build httpd/0.2.0+d3f3407 (2026-08-30T10:00:00Z) from the git checkout`.
 *
 * @param info The build facts.
 * @returns The line.
 */
export function buildLine(info: BuildInfo = BuildInfo.current()): string {
  // `source` is read only when the library has it.
  const source = (info as BuildInfo & { readonly source?: BuildSource })
    .source;
  const from = source === undefined ? undefined : FROM[source];
  return `Build ${info.serverHeader}${from ? ` ${from}` : ""}`;
}
