/**
 * The Basic authentication of a running `serve`: over the whole site, or
 * only over the metrics endpoint (`--metrics-auth`), with the htpasswd file
 * read again on SIGHUP.
 *
 * @module
 */
import type { Filter } from "@org/httpd";
import type { ServeConfig } from "../../config.ts";
import { isMetricsRequest } from "../metrics_route.ts";
import { Accounts } from "./accounts.ts";
import { basicAuth } from "./basic_auth.ts";

/** The filters that ask for a password, and their reload. */
export interface SiteAuth {
  /** For the site's handler; absent when only a metrics endpoint on its own address asks. */
  site?: Filter;
  /** For a metrics endpoint on its own address. */
  metrics: Filter;
  /**
   * Reads the htpasswd file again and forgets remembered logins; on a
   * mistake the old accounts stay.
   *
   * @throws {UsageError} When the file cannot be read or has a bad entry.
   */
  reload(): Promise<void>;
}

/**
 * Builds the filters of `config.auth`, reading the htpasswd file.
 *
 * @param config The configuration.
 * @returns The filters, or `undefined` without authentication.
 * @throws {UsageError} When the file cannot be read or has a bad entry.
 */
export async function openSiteAuth(
  config: ServeConfig,
): Promise<SiteAuth | undefined> {
  const settings = config.auth;
  if (settings === undefined) return undefined;
  const accounts = await Accounts.open({
    users: settings.users,
    ...(settings.file === undefined ? {} : { file: settings.file }),
  });
  const path = config.metrics;
  const everything = basicAuth(accounts);
  const site = !settings.metricsOnly
    ? everything
    : path !== undefined && config.metricsBind === undefined
    ? basicAuth(accounts, { when: (req) => isMetricsRequest(req, path) })
    : undefined;
  return {
    ...(site ? { site: site.filter } : {}),
    metrics: everything.filter,
    reload: async () => {
      await accounts.reload();
      everything.forget();
      site?.forget();
    },
  };
}
