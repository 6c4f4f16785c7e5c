/**
 * {@linkcode MetricRegistries}: one registry per scope, and
 * {@linkcode getRegistry}, the analogue of MicroProfile's `@RegistryScope`.
 *
 * @module
 */
import {
  APPLICATION_SCOPE,
  BASE_SCOPE,
  MetricRegistry,
  VENDOR_SCOPE,
} from "./registry.ts";
import {
  MetricsConfig,
  type MetricsConfigOptions,
  resolveMetricsConfig,
} from "./config.ts";
import { checkScopeName } from "./internal/names.ts";
import { filterState, type MetricsState, type StateFilter } from "./state.ts";

/** Options of {@linkcode MetricRegistries}. */
export interface MetricRegistriesOptions {
  /**
   * The configuration shared by every scope: a resolved
   * {@linkcode MetricsConfig}, or the sources to resolve it from. Without it
   * nothing is read: no global tags, default distributions.
   */
  config?: MetricsConfig | MetricsConfigOptions;
  /** Monotonic milliseconds for the recent windows; for tests. */
  clock?: () => number;
}

/**
 * A set of registries, one per scope, sharing one configuration. The
 * `application`, `base` and `vendor` scopes always exist; a custom scope is
 * created on first request.
 *
 * @example Scopes of one set
 * ```ts
 * import { MetricRegistries } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries({
 *   config: { properties: { "mp.metrics.tags": "tier=integration" }, env: false, propertiesFile: null },
 * });
 * registries.get("golf_stats").histogram("distance");
 * assert.deepEqual(registries.scopes(), ["application", "base", "vendor", "golf_stats"]);
 * assert.deepEqual(registries.config.globalTags, [["tier", "integration"]]);
 * ```
 */
export class MetricRegistries {
  /** The configuration shared by every scope. */
  readonly config: MetricsConfig;
  readonly #clock: (() => number) | undefined;
  readonly #registries = new Map<string, MetricRegistry>();

  /**
   * Creates the set with its three predefined scopes.
   *
   * @param options Configuration and clock.
   */
  constructor(options?: MetricRegistriesOptions) {
    if (options === undefined) options = {};
    const config = options.config;
    this.config = config instanceof MetricsConfig
      ? config
      : config === undefined
      ? new MetricsConfig()
      : resolveMetricsConfig(config);
    this.#clock = options.clock;
    for (const scope of [APPLICATION_SCOPE, BASE_SCOPE, VENDOR_SCOPE]) {
      this.get(scope);
    }
  }

  /**
   * Returns the registry of a scope, creating a custom scope on first use.
   *
   * @param scope A scope name matching `[a-zA-Z_][a-zA-Z0-9_]*`; `application` by default.
   * @returns The registry.
   * @throws {InvalidNameError} When the scope name is invalid.
   */
  get(scope?: string): MetricRegistry {
    if (scope === undefined) scope = APPLICATION_SCOPE;
    let registry = this.#registries.get(scope);
    if (registry === undefined) {
      checkScopeName(scope);
      registry = new MetricRegistry(scope, {
        config: this.config,
        ...(this.#clock ? { clock: this.#clock } : {}),
      });
      this.#registries.set(scope, registry);
    }
    return registry;
  }

  /**
   * Tells whether a scope exists, without creating it.
   *
   * @param scope The scope name.
   * @returns `true` for the predefined scopes and custom scopes in use.
   */
  has(scope: string): boolean {
    return this.#registries.has(scope);
  }

  /**
   * Returns the scope names: `application`, `base`, `vendor`, then custom
   * scopes in creation order.
   *
   * @returns The names.
   */
  scopes(): string[] {
    return [...this.#registries.keys()];
  }

  /**
   * Returns a plain, JSON-able copy of the contents: the input of the
   * formatters and of {@linkcode mergeStates}.
   *
   * @param filter Only this scope and/or metric name.
   * @returns The state.
   */
  state(filter?: StateFilter): MetricsState {
    if (filter === undefined) filter = {};
    const scopes = [];
    for (const [scope, registry] of this.#registries) {
      if (filter.scope !== undefined && filter.scope !== scope) continue;
      scopes.push(registry.toState(filter.name));
    }
    return filter.name === undefined && filter.scope === undefined
      ? { scopes }
      : filterState({ scopes }, filter);
  }
}

let defaults: MetricRegistries | undefined;

/**
 * Returns the process-wide registries, created on first use with the
 * configuration of {@linkcode resolveMetricsConfig} (environment variables
 * and `microprofile-config.properties`).
 *
 * @example The default set backs getRegistry
 * ```ts
 * import { defaultRegistries, getRegistry } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * assert.equal(defaultRegistries().get("vendor"), getRegistry("vendor"));
 * ```
 *
 * @returns The default set.
 */
export function defaultRegistries(): MetricRegistries {
  return defaults ??= new MetricRegistries({ config: {} });
}

/**
 * Replaces the process-wide registries, e.g. to pass explicit configuration.
 * Call it before metrics are registered: existing metrics stay in the old set.
 *
 * @example Configure the default set
 * ```ts
 * import { getRegistry, MetricRegistries, setDefaultRegistries } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries({ config: { properties: { "mp.metrics.appName": "shop" } } });
 * setDefaultRegistries(registries);
 * assert.equal(getRegistry().config.appName, "shop");
 * ```
 *
 * @param registries The new default set.
 */
export function setDefaultRegistries(registries: MetricRegistries): void {
  defaults = registries;
}

/**
 * Returns the process-wide registry of a scope, the analogue of injecting a
 * `MetricRegistry` with `@RegistryScope(scope = ...)`.
 *
 * @example Count in the application scope
 * ```ts
 * import { getRegistry } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * getRegistry().counter("example.visits").inc();
 * assert.equal(getRegistry("application").scope, "application");
 * ```
 *
 * @param scope A scope name; `application` by default.
 * @returns The registry.
 * @throws {InvalidNameError} When the scope name is invalid.
 */
export function getRegistry(scope?: string): MetricRegistry {
  if (scope === undefined) scope = APPLICATION_SCOPE;
  return defaultRegistries().get(scope);
}
