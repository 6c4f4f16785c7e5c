/**
 * The rules between settings: each one a check over the merged settings
 * that names the setting at fault (with its YAML position when it came
 * from the file). They run in order, after the merge and before the file
 * system is consulted.
 *
 * @module
 */
import { UsageError, type UsageErrorCode } from "../errors.ts";
import type { Origin, Settings } from "./merge.ts";
import { type SettingId, settingOf } from "./settings.ts";
import { DEFAULT_METRICS_PATH, MAX_WORKERS } from "./value_types.ts";

/** A rule: returns the mistake, or `undefined` when the settings keep it. */
export interface Rule {
  /** What it asks for, in a few words. */
  readonly name: string;
  /** Checks the settings. */
  check(settings: Settings): UsageError | undefined;
}

/** Whether HTTPS is asked for (the pair's own rule says when half of it is). */
function https(s: Settings): boolean {
  return s.value("tlsCert") !== undefined && s.value("tlsKey") !== undefined;
}

/** The metrics endpoint's path, when there is one. */
export function metricsPath(s: Settings): string | undefined {
  const path = s.value("metrics");
  if (path !== false) return path;
  return s.value("metricsBind") === undefined
    ? undefined
    : DEFAULT_METRICS_PATH;
}

/** The worker count, `auto` being the CPU count. */
export function workerCount(s: Settings): number {
  const workers = s.value("workers");
  return workers === "auto"
    ? Math.min(MAX_WORKERS, Math.max(1, navigator.hardwareConcurrency || 1))
    : workers;
}

/** How the setting's source is named in a message, the other source's way when asked. */
function named(s: Settings, id: SettingId, like?: Origin): string {
  const origin = s.origin(id);
  const source = like?.source ?? origin.source;
  const row = settingOf(id);
  if (source === "yaml" && row.yaml) return row.yaml;
  if (source === "env" && row.env) return row.env;
  return row.flag ? `--${row.flag}` : origin.name;
}

function fail(
  code: UsageErrorCode,
  origin: Origin,
  problem: string,
): UsageError {
  return new UsageError(
    code,
    `Cannot use ${origin.name}${problem}`,
    origin.position ? { position: origin.position } : undefined,
  );
}

/** The rules, checked in this order. */
export const RULES: readonly Rule[] = [
  {
    name: "one fallback per source",
    check(s) {
      const fallback = s.origin("fallback");
      const spa = s.origin("spaFallback");
      if (typeof s.value("fallback") !== "string" || !s.named("spaFallback")) {
        return undefined;
      }
      // A higher source's fallback replaces a lower one's other fallback.
      if (fallback.source !== spa.source) return undefined;
      const later = (spa.position?.line ?? 0) > (fallback.position?.line ?? 0)
        ? spa
        : fallback;
      return new UsageError(
        "conflict",
        `Cannot use ${fallback.name} together with ${spa.name}: a miss answers either 404 or 200`,
        later.position ? { position: later.position } : undefined,
      );
    },
  },
  {
    name: "--compress needs compression",
    check(s) {
      if (!s.value("compress") || s.value("gzip")) return undefined;
      const gzip = s.origin("gzip");
      const off = gzip.source === "flag"
        ? gzip.name
        : `${gzip.name}${gzip.source === "env" ? "=" : " "}false`;
      return fail(
        "conflict",
        s.origin("compress"),
        ` together with ${off}: compression is off`,
      );
    },
  },
  {
    name: "--metrics-auth needs users",
    check(s) {
      if (!s.value("metricsAuth")) return undefined;
      if (s.value("authUsers").length > 0 || s.value("authFile")) {
        return undefined;
      }
      return fail(
        "missing-value",
        s.origin("metricsAuth"),
        " without --auth or --auth-file: it needs users",
      );
    },
  },
  {
    name: "--metrics-auth needs the metrics endpoint",
    check(s) {
      if (!s.value("metricsAuth") || metricsPath(s) !== undefined) {
        return undefined;
      }
      return fail(
        "missing-value",
        s.origin("metricsAuth"),
        ": there is no metrics endpoint (add --metrics)",
      );
    },
  },
  {
    name: "HTTPS needs both files",
    check(s) {
      const cert = s.value("tlsCert") !== undefined;
      const key = s.value("tlsKey") !== undefined;
      if (cert === key) return undefined;
      const given: SettingId = cert ? "tlsCert" : "tlsKey";
      const missing: SettingId = cert ? "tlsKey" : "tlsCert";
      return fail(
        "missing-value",
        s.origin(given),
        ` without ${named(s, missing, s.origin(given))}: HTTPS needs both`,
      );
    },
  },
  ...([
    ["redirectHttp", "redirect"],
    ["hsts", "tell browsers to use"],
    ["http3", "serve HTTP/3 beside"],
    ["tlsPlainHttp", "answer plain HTTP on"],
  ] as const).map(([id, what]): Rule => ({
    name: `${settingOf(id).flag} needs HTTPS`,
    check(s) {
      const value = s.value(id);
      if (value === undefined || value === false || https(s)) return undefined;
      return fail(
        "missing-value",
        s.origin(id),
        `: there is no HTTPS to ${what} (add --tls-cert and --tls-key)`,
      );
    },
  })),
  {
    name: "--redirect-http needs its own port",
    check(s) {
      const port = s.value("redirectHttp");
      if (port === undefined || port === 0 || port !== s.value("port")) {
        return undefined;
      }
      return fail(
        "conflict",
        s.origin("redirectHttp"),
        `: port ${port} already serves HTTPS`,
      );
    },
  },
  {
    name: "workers cannot share a TLS port",
    check(s) {
      const count = workerCount(s);
      if (count <= 1 || !https(s)) return undefined;
      // The server binds TLS listeners without SO_REUSEPORT.
      return fail(
        "conflict",
        s.origin("workers"),
        ` ${count} with ${
          named(s, "tlsCert")
        }: workers cannot share a TLS port yet`,
      );
    },
  },
  {
    name: "probe paths are their own",
    check(s) {
      const health = s.value("healthPath");
      const ready = s.value("readyPath");
      if (health !== undefined && health === ready) {
        return fail(
          "conflict",
          s.origin("readyPath"),
          `: "${ready}" is already the liveness path`,
        );
      }
      // With its own address, the metrics path is free on the site.
      const metrics = s.value("metricsBind") === undefined
        ? metricsPath(s)
        : undefined;
      for (const id of ["healthPath", "readyPath"] as const) {
        if (metrics !== undefined && s.value(id) === metrics) {
          return fail(
            "conflict",
            s.origin(id),
            `: "${metrics}" is already the metrics path`,
          );
        }
      }
      return undefined;
    },
  },
];

/**
 * Checks the rules in order.
 *
 * @param settings The merged settings.
 * @throws {UsageError} The first rule broken.
 */
export function checkRules(settings: Settings): void {
  for (const rule of RULES) {
    const error = rule.check(settings);
    if (error) throw error;
  }
}
