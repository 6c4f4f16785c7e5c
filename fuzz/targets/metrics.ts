/**
 * `@org/metrics`: the MicroProfile Config properties, the `mp.metrics.*`
 * values, and the text expositions parsed back (and, for a sample, checked
 * by `promtool check metrics`).
 *
 * @module
 */
import fc from "fast-check";
import {
  Metadata,
  MetricRegistries,
  MetricsConfig,
  MetricsError,
  renderOpenMetrics,
  renderPrometheus,
} from "@org/metrics";
import { parseProperties } from "../../metrics/internal/properties.ts";
import { parseRules } from "../../metrics/internal/distribution_config.ts";
import {
  PROMTOOL,
  promtoolCheck,
  unexpected,
} from "../../tests/support/promtool.ts";
import { expect, type Target, typed } from "../harness.ts";
import { mutatedText } from "../mutate.ts";
import { parseExposition } from "../exposition_parser.ts";

/** Writes a key or value the way `java.util.Properties.store` would. */
function escapeProperty(text: string): string {
  let out = "";
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\f") out += "\\f";
    else if (" =:#!".includes(ch)) out += "\\" + ch;
    else if (c < 0x20 || c > 0x7e) {
      for (let i = 0; i < ch.length; i++) {
        out += "\\u" + ch.charCodeAt(i).toString(16).padStart(4, "0");
      }
    } else out += ch;
  }
  return out;
}

const KEYS = [
  "mp.metrics.tags",
  "mp.metrics.appName",
  "mp.metrics.defaultAppName",
  "mp.metrics.distribution.percentiles",
  "mp.metrics.distribution.histogram.buckets",
  "mp.metrics.distribution.timer.buckets",
  "mp.metrics.distribution.percentiles-histogram.enabled",
  "mp.metrics.compat.timer.minmax.histogram.buckets.percentiles",
];

const VALUE_SEEDS = [
  "tier=integration,special=deli\\=ver\\,y",
  "alpha.*=0.6;alpha.test=0.4",
  "0.5,0.95,0.99;checkout=0.9",
  "alpha.timer=500ms,2s;beta=1h,1d,250us,10µs",
  "h=1,2.5,10,100.0",
  "true",
  "=;;*=;a=,;",
];

const anyText = fc.string({ unit: "binary", maxLength: 24 });

interface ConfigInput {
  file: string;
  entries: [string, string][];
  names: string[];
}

/** `parseProperties` round trips; `MetricsConfig` never throws, answers sorted. */
export const metricsConfig: Target<ConfigInput> = {
  name: "metrics-config",
  entry:
    "metrics/internal/properties.ts parseProperties, metrics/config.ts MetricsConfig",
  ciRuns: 15_000,
  arbitrary() {
    const fileSeed =
      KEYS.map((k, i) => `${k}=${VALUE_SEEDS[i % VALUE_SEEDS.length]}`).join(
        "\n",
      ) +
      "\n# comment\n! comment\nkey\\\n  continued = value \\\\\nempty\nunicode=\\u00e9\\u0\n";
    return fc.record({
      file: fc.oneof(mutatedText([fileSeed], 6), anyText),
      entries: fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...KEYS), anyText),
          fc.oneof(
            mutatedText(VALUE_SEEDS),
            anyText,
            fc.string({ maxLength: 20 }),
          ),
        ),
        { maxLength: 6 },
      ),
      names: fc.array(
        fc.oneof(
          fc.constantFrom(
            "alpha.test",
            "alpha.timer",
            "checkout",
            "beta",
            "h",
            "",
          ),
          anyText,
        ),
        { maxLength: 3 },
      ),
    });
  },
  check({ file, entries, names }) {
    const parsed = typed(() => parseProperties(file), []).value!;
    // Written with escapes, the entries read back exactly.
    const written = entries.map(([k, v]) =>
      `${escapeProperty(k)}=${escapeProperty(v)}`
    ).join("\n");
    const back = parseProperties(written);
    const expected = new Map(entries);
    expect(
      JSON.stringify([...back]) === JSON.stringify([...expected]),
      () =>
        `round trip of ${JSON.stringify(written)}: ${
          JSON.stringify([...back])
        }`,
    );
    for (
      const values of [Object.fromEntries(parsed), Object.fromEntries(entries)]
    ) {
      const warnings: string[] = [];
      const config = typed(
        () => new MetricsConfig(values, (w) => warnings.push(w.key)),
        [],
      ).value!;
      for (const [k, v] of config.globalTags) {
        expect(k !== "" && v !== "", () => `empty global tag ${k}=${v}`);
      }
      for (const name of names) {
        const p = config.percentilesFor(name);
        expect(
          p.every((q, i) => q >= 0 && q <= 1 && (i === 0 || p[i - 1]! < q)),
          () => `percentiles ${p}`,
        );
        for (
          const b of [
            config.histogramBucketsFor(name),
            config.timerBucketsFor(name),
          ]
        ) {
          expect(
            b.every((x, i) =>
              Number.isFinite(x) && x >= 0 && (i === 0 || b[i - 1]! < x)
            ),
            () => `buckets ${b}`,
          );
        }
      }
      for (
        const kind of [
          "percentiles",
          "histogramBuckets",
          "timerBuckets",
        ] as const
      ) {
        for (const v of Object.values(values)) {
          typed(() => parseRules(kind, v ?? ""), []);
        }
      }
    }
  },
};

interface MetricSpec {
  kind: "counter" | "gauge" | "histogram" | "timer";
  name: string;
  description: string;
  unit: string;
  tags: [string, string][];
  values: number[];
}

interface ExpositionInput {
  tags: string;
  metrics: MetricSpec[];
}

const tagName = fc.oneof(
  fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,6}$/),
  fc.constantFrom("mp_scope", "le", "quantile", "__x", "a-b", ""),
);
const metricName = fc.oneof(
  fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_.]{0,12}$/),
  fc.constantFrom(
    "a",
    "a.b",
    "a_total",
    "a_count",
    "2x",
    "",
    "a b",
    "é",
    "a:b",
    "_x",
  ),
);
const sampleValue = fc.oneof(
  fc.double({ noNaN: false }),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER + 2,
    NaN,
    Infinity,
    -Infinity,
  ),
);
const metricSpec: fc.Arbitrary<MetricSpec> = fc.record({
  kind: fc.constantFrom("counter", "gauge", "histogram", "timer"),
  name: metricName,
  description: fc.oneof(fc.constant(""), anyText, fc.string({ maxLength: 20 })),
  unit: fc.constantFrom(
    "none",
    "bytes",
    "seconds",
    "milliseconds",
    "",
    "per cent",
    "x",
  ),
  tags: fc.array(
    fc.tuple(
      tagName,
      fc.oneof(
        anyText,
        fc.string({ maxLength: 10 }),
        fc.constantFrom('"', "\\", "\n", "\\n", 'a\\"b'),
      ),
    ),
    { maxLength: 3 },
  ),
  values: fc.array(sampleValue, { maxLength: 4 }),
});

/** Rendered texts kept for `promtool` (at most this many per run). */
const PROMTOOL_SAMPLE = 1_000;
let seen = 0;
const sample: string[] = [];

/** The expositions parse back with every label value, and pass promtool. */
export const exposition: Target<ExpositionInput> = {
  name: "openmetrics",
  entry:
    "metrics/openmetrics.ts renderOpenMetrics, metrics/prometheus.ts renderPrometheus",
  ciRuns: 3_000,
  arbitrary() {
    return fc.record({
      tags: fc.oneof(
        fc.constant(""),
        mutatedText(["tier=integration,special=deli\\=ver\\,y"]),
      ),
      metrics: fc.array(metricSpec, { minLength: 1, maxLength: 5 }),
    });
  },
  check(input) {
    const registries = new MetricRegistries({
      config: {
        properties: { "mp.metrics.tags": input.tags },
        env: false,
        propertiesFile: null,
        onWarning: () => {},
      },
    });
    const app = registries.get();
    const expectedValues: string[] = [];
    for (const m of input.metrics) {
      const tags = Object.fromEntries(m.tags);
      const metadata = typed(() =>
        new Metadata({
          name: m.name,
          description: m.description,
          unit: m.unit,
        }), [TypeError, RangeError, MetricsError]).value;
      if (!metadata) {
        continue;
      }
      const made = typed(() => {
        switch (m.kind) {
          case "counter": {
            const c = app.counter(metadata, tags);
            for (const v of m.values) {
              typed(() => c.inc(v), [TypeError, RangeError, MetricsError]);
            }
            return c;
          }
          case "gauge":
            return app.gauge(metadata, () => m.values[0] ?? 0, { tags });
          case "histogram": {
            const h = app.histogram(metadata, tags);
            for (const v of m.values) {
              typed(() => h.update(v), [TypeError, RangeError, MetricsError]);
            }
            return h;
          }
          case "timer": {
            const t = app.timer(metadata, tags);
            for (const v of m.values) {
              typed(() => t.update(v), [TypeError, RangeError, MetricsError]);
            }
            return t;
          }
        }
      }, [TypeError, RangeError, MetricsError]);
      if (made.value) expectedValues.push(...Object.values(tags));
    }
    const state = registries.state();
    const open = renderOpenMetrics(state);
    const prom = renderPrometheus(state);
    for (
      const [format, text] of [["openmetrics", open], [
        "prometheus",
        prom,
      ]] as const
    ) {
      const parsed = parseExposition(text, format);
      expect(
        parsed.errors.length === 0,
        () => `${format} line does not parse: ${parsed.errors[0]}`,
      );
      for (const v of expectedValues) {
        expect(
          parsed.labelValues.has(v),
          () => `${format}: tag value ${JSON.stringify(v)} not found`,
        );
      }
    }
    if (
      PROMTOOL !== undefined && seen++ % 97 === 0 &&
      sample.length < PROMTOOL_SAMPLE
    ) {
      sample.push(prom);
    }
  },
  async finish() {
    if (PROMTOOL === undefined) {
      return {
        notes: ["promtool is not installed: `promtool check metrics` SKIPPED"],
      };
    }
    const texts = sample.splice(0);
    // A parse error fails; lints outside the TCK-mandated ones are counted
    // (a user tag named "le" or "quantile" draws one: finding F2).
    const errors: string[] = [];
    const lints = new Map<string, number>();
    for (let i = 0; i < texts.length; i += 4) {
      const results = await Promise.all(
        texts.slice(i, i + 4).map((t) => promtoolCheck(PROMTOOL!, t)),
      );
      results.forEach((r, j) => {
        for (const problem of unexpected(r.problems)) {
          if (/error|pars/i.test(problem)) {
            errors.push(
              `${problem} in ${JSON.stringify(texts[i + j]!.slice(0, 300))}`,
            );
          } else {
            const kind = problem.replace(/^\S+ /, "");
            lints.set(kind, (lints.get(kind) ?? 0) + 1);
          }
        }
      });
    }
    return {
      notes: [
        `promtool check metrics: ${texts.length} expositions, ${errors.length} parse error(s)`,
        ...[...lints].map(([kind, n]) => `promtool lint (${n}×): ${kind}`),
      ],
      failure: errors[0],
    };
  },
};
