/**
 * The fixtures of the MicroProfile Metrics 5.1.1 REST TCK (`MetricAppBean`,
 * `MetricAppBean2`, `HistogramTimerConfigBean`), registered in TypeScript,
 * and the TCK's configuration file, verbatim.
 *
 * @module
 */
import {
  Metadata,
  MetricID,
  type MetricRegistries,
  MetricUnits,
} from "@org/metrics";

/** `org.eclipse.microprofile.metrics.test.MetricAppBean`. */
export const C = "org.eclipse.microprofile.metrics.test.MetricAppBean";

/** `TR/res/microprofile-config.properties`, verbatim. */
export const TCK_CONFIG_PROPERTIES = String.raw`
mp.metrics.distribution.percentiles=annotatedTimerCustomPercentile=0.3,0.5,0.6;annotatedTimerNoPercentile=;annotatedTimerCustomBucketsCustomPercentile=0.4,0.7;annotatedTimerCustomBucketsNoPercentile=;timerCustomPercentile=0.3,0.5,0.6;timerNoPercentile=;timerCustomBucketsCustomPercentile=0.4,0.7;timerCustomBucketsNoPercentile=;histogramCustomPercentile=0.3,0.5,0.6;histogramNoPercentile=;histogramCustomBucketsCustomPercentile=0.4,0.7;histogramCustomBucketsNoPercentile=;histogramBadPercentiles=0.1,adf,fd.ks,0.3,%0.4,()*&$(,0.4,/0.1;timerBadPercentiles=()sdf,0.34fdsf,0.1,(//2,f0.3,33,1.1,><;precedence.*=0.8,0.9;precedence.override.histogram=0.2;;precedence.override.timer=0.3
mp.metrics.distribution.timer.buckets=annotatedTimerCustomBucketsDefaultPercentile=100,200ms,2s,1m,1h;annotatedTimerCustomBucketsCustomPercentile=120ms,3s;annotatedTimerCustomBucketsNoPercentile=789ms,2s;timerCustomBucketsDefaultPercentile=100,200ms,2s,1m,1h;timerCustomBucketsCustomPercentile=120ms,3s;timerCustomBucketsNoPercentile=789ms,2s;timerBadBuckets=sdf,10,30ms,500,sdf.s,90msh,12.0,&*(,//sdf,,90dk,,.,;precedence.*=23ms,455ms;precedence.override.timer=32s
mp.metrics.distribution.histogram.buckets=histogramCustomBucketsDefaultPercentile=100,200,345;histogramCustomBucketsCustomPercentile=120,3;histogramCustomBucketsNoPercentile=789,67;histogramBadBuckets=sdf,10,sdf.s,12.0,&*(,//sdf,,90;precedence.*=23,45;precedence.override.histogram=32
`;

/** What `@Timed` registers: unit nanoseconds. */
function timed(name: string): Metadata {
  return new Metadata({ name, unit: MetricUnits.NANOSECONDS });
}

/** Metrics of `MetricAppBean` registered at deploy time. */
export function deployMetricAppBean(registries: MetricRegistries): void {
  const app = registries.get("application");
  app.counter(
    new Metadata({ name: `${C}.redCount`, description: "red-description" }),
  );
  app.counter(`${C}.blue`);
  registries.get("customScopeA").counter("sharedMetricName");
  registries.get("customScopeB").timer(timed("sharedMetricName"));
  registries.get("customScopeC").gauge(
    new Metadata({ name: "sharedMetricName", unit: "jelly" }),
    () => 123,
  );
  registries.get("customScopeD").histogram(
    new Metadata({ name: "sharedMetricName", unit: "marshmallow" }),
  );
  app.counter(`${C}.semiColonTaggedCounter`, { scTag: "semi;colons;are;bad" });
  app.counter(`${C}.noTagCounter`);
  app.counter(`${C}.taggedCounter`, { number: "one" });
  app.counter(`${C}.taggedCounter`, { number: "two" });
  app.histogram(new Metadata({ name: "noTagHistogram", unit: "marshmallow" }));
  app.histogram(
    new Metadata({ name: "taggedHistogram", unit: "marshmallow" }),
    { number: "one" },
  );
  app.histogram(
    new Metadata({ name: "taggedHistogram", unit: "marshmallow" }),
    { number: "two" },
  );
  app.timer("noTagTimer");
  app.timer("taggedTimer", { number: "one" });
  app.timer("taggedTimer", { number: "two" });
  app.gauge("noTagGauge", () => 1000);
  app.gauge(new MetricID("taggedGauge", { number: "one" }), () => 1000);
  app.gauge(new MetricID("taggedGauge", { number: "two" }), () => 1000);
  app.counter("greenCount");
  app.counter("purple", { app: "myShop" });
  app.histogram(
    new Metadata({
      name: "jellybeanHistogram",
      unit: "jellybeans",
      description: "jellybeans-description",
    }),
  );
  app.counter(
    new Metadata({
      name: "metricTest.test1.countMeA",
      description: "count-me-a-description",
    }),
  );
  app.counter(
    new Metadata({ name: "metricTest.test1.countMeB", unit: "jellybean" }),
  );
  app.gauge(
    new Metadata({
      name: `${C}.gaugeMeA`,
      unit: MetricUnits.KIBIBITS,
      description: "gauge-me-a-description",
    }),
    () => 1000,
  );
  app.gauge(
    new Metadata({ name: `${C}.gaugeMeB`, unit: "hands" }),
    () => 7777777,
  );
  app.timer(timed(`${C}.timeMeA`));
}

/** In-container step seq 10 of `MpMetricTest` (`testSetupApplicationMetrics`). */
export function setupApplicationMetrics(registries: MetricRegistries): void {
  const app = registries.get("application");
  app.counter("metricTest.test1.count").inc();
  app.counter(
    new Metadata({
      name: "metricTest.test1.countMeA",
      description: "count-me-a-description",
    }),
  ).inc();
  app.counter(
    new Metadata({ name: "metricTest.test1.countMeB", unit: "jellybean" }),
  ).inc();
  app.gauge(
    new Metadata({
      name: "metricTest.test1.gauge",
      unit: MetricUnits.GIGABYTES,
    }),
    () => 19,
  );
  const histogram = app.histogram(
    new Metadata({
      name: "metricTest.test1.histogram",
      unit: MetricUnits.BYTES,
    }),
  );
  for (let i = 0; i < 1000; i++) histogram.update(i);
  app.histogram("metricTest.test1.histogram2").update(1);
  app.timer("metricTest.test1.timer").update(Math.floor(Math.random() * 1e9));
  app.timer(timed(`${C}.timeMeA`)).time(() => {});
}

/** In-container step seq 19: counters with characters Prometheus lacks. */
export function setupPromNameCounters(registries: MetricRegistries): void {
  const app = registries.get("application");
  for (
    const name of [
      "pm_counter-with-dashes",
      "pm_counter#hash_x'y_",
      "pm_counter-umlaut-äöü",
      "pm_counter+accent_ê_",
    ]
  ) {
    app.counter(name);
  }
}

/** `HistogramTimerConfigBean`: the annotated timers, registered at deploy. */
export function deployHistogramTimerConfigBean(
  registries: MetricRegistries,
): void {
  const app = registries.get("application");
  for (
    const name of [
      "annotatedTimerCustomPercentile",
      "annotatedTimerNoPercentile",
      "annotatedTimerCustomBucketsDefaultPercentile",
      "annotatedTimerCustomBucketsCustomPercentile",
      "annotatedTimerCustomBucketsNoPercentile",
    ]
  ) app.timer(timed(name));
}

/** `HistogramTimerConfigurationTest` seq 6: the programmatic metrics. */
export function setupHistogramTimerConfig(registries: MetricRegistries): void {
  const app = registries.get("application");
  for (
    const suffix of [
      "CustomPercentile",
      "NoPercentile",
      "CustomBucketsDefaultPercentile",
      "CustomBucketsCustomPercentile",
      "CustomBucketsNoPercentile",
    ]
  ) {
    app.histogram(`histogram${suffix}`);
    app.timer(`timer${suffix}`);
  }
  app.timer("timerBadPercentiles");
  app.timer("timerBadBuckets");
  app.histogram("histogramBadPercentiles");
  app.histogram("histogramBadBuckets");
  app.histogram("precedence.histogram");
  app.histogram("precedence.override.histogram");
  app.timer("precedence.timer");
  app.timer("precedence.override.timer");
}

/** `MetricAppBean2`: two methods share `countMe2` and `timeMe2`. */
export function metricAppBean2(
  registries: MetricRegistries,
): { countMe: () => void; timeMe: () => void } {
  const app = registries.get("application");
  return {
    countMe: () => app.counter(new Metadata({ name: "countMe2" })).inc(),
    timeMe: () => app.timer(timed("timeMe2")).time(() => {}),
  };
}
