import assert from "node:assert/strict";
import {
  type ConfigWarning,
  envNamesFor,
  MetricsConfig,
  resolveMetricsConfig,
} from "./config.ts";

Deno.test("envNamesFor() follows MicroProfile Config's mapping", () => {
  assert.deepEqual(envNamesFor("mp.metrics.tags"), [
    "mp.metrics.tags",
    "mp_metrics_tags",
    "MP_METRICS_TAGS",
  ]);
});

Deno.test("resolveMetricsConfig() ranks explicit options over env over the properties file", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/microprofile-config.properties`;
  await Deno.writeTextFile(
    file,
    "mp.metrics.appName=fromFile\nmp.metrics.tags=a=file\nmp.metrics.distribution.percentiles=x=0.1\n",
  );
  try {
    const config = resolveMetricsConfig({
      properties: { "mp.metrics.appName": "explicit" },
      env: { MP_METRICS_APPNAME: "env", MP_METRICS_TAGS: "a=env" },
      propertiesFile: file,
    });
    assert.equal(config.appName, "explicit");
    assert.deepEqual(config.globalTags, [["a", "env"]]);
    assert.deepEqual(config.percentilesFor("x"), [0.1]);
    const fromFile = resolveMetricsConfig({ env: false, propertiesFile: file });
    assert.equal(fromFile.appName, "fromFile");
    assert.deepEqual(fromFile.globalTags, [["a", "file"]]);
    // The exact and the lower-case forms are found too.
    assert.equal(
      resolveMetricsConfig({
        env: { "mp.metrics.appName": "dotted" },
        propertiesFile: null,
      }).appName,
      "dotted",
    );
    assert.equal(
      resolveMetricsConfig({
        env: { mp_metrics_appName: "sanitized" },
        propertiesFile: null,
      }).appName,
      "sanitized",
    );
    assert.equal(
      resolveMetricsConfig({
        env: { mp_metrics_appname: "lower" },
        propertiesFile: null,
      }).appName,
      undefined,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resolveMetricsConfig() reads the real environment when permitted", () => {
  Deno.env.set("MP_METRICS_DEFAULTAPPNAME", "fallback-app");
  try {
    assert.equal(
      resolveMetricsConfig({ propertiesFile: null }).appName,
      "fallback-app",
    );
  } finally {
    Deno.env.delete("MP_METRICS_DEFAULTAPPNAME");
  }
});

Deno.test("a missing properties file is no error", () => {
  const warnings: ConfigWarning[] = [];
  const config = resolveMetricsConfig({
    env: false,
    propertiesFile: "/nonexistent/dir/x.properties",
    onWarning: (w) => warnings.push(w),
  });
  assert.deepEqual(config.globalTags, []);
  assert.equal(warnings.length, 0);
});

Deno.test("mp.metrics.tags unescapes \\= and \\, in values", () => {
  const config = new MetricsConfig({
    "mp.metrics.tags": "app=shop,tier=integration,special=deli\\=ver\\,y",
  });
  assert.deepEqual(config.globalTags, [["app", "shop"], [
    "special",
    "deli=ver,y",
  ], ["tier", "integration"]]);
});

Deno.test("a malformed value is ignored with exactly one warning naming the key", () => {
  for (
    const bad of [
      "a=b,c",
      "=v",
      "k=",
      "a=b=c",
      "bad-name=v",
      "mp_scope=x",
      "a=b,,c=d",
    ]
  ) {
    const warnings: ConfigWarning[] = [];
    const config = new MetricsConfig(
      { "mp.metrics.tags": bad },
      (w) => warnings.push(w),
    );
    assert.deepEqual(config.globalTags, [], bad);
    assert.equal(warnings.length, 1, bad);
    assert.equal(warnings[0]?.key, "mp.metrics.tags");
  }
  const warnings: ConfigWarning[] = [];
  const config = new MetricsConfig({
    "mp.metrics.compat.timer.minmax.histogram.buckets.percentiles": "maybe",
    "mp.metrics.distribution.percentiles": "nogroup;x=0.5,abc,2",
  }, (w) => warnings.push(w));
  assert.equal(config.compatTimerMinMax, false);
  assert.deepEqual(config.percentilesFor("x"), [0.5]);
  assert.deepEqual(warnings.map((w) => w.key).sort(), [
    "mp.metrics.compat.timer.minmax.histogram.buckets.percentiles",
    "mp.metrics.distribution.percentiles",
  ]);
});

Deno.test("an empty percentiles property, or *=, disables percentiles everywhere", () => {
  assert.deepEqual(
    new MetricsConfig({ "mp.metrics.distribution.percentiles": "" })
      .percentilesFor("any"),
    [],
  );
  assert.deepEqual(
    new MetricsConfig({ "mp.metrics.distribution.percentiles": "*=" })
      .percentilesFor("any"),
    [],
  );
  assert.deepEqual(new MetricsConfig({}).percentilesFor("any"), [
    0.5,
    0.75,
    0.95,
    0.98,
    0.99,
    0.999,
  ]);
  assert.deepEqual(
    new MetricsConfig({
      "mp.metrics.distribution.percentiles":
        "alpha.*=0.6;alpha.test.histogram=0.4",
    }).percentilesFor("alpha.test.histogram"),
    [0.4],
  );
});

Deno.test("without env or read permission, configuration and registration do not crash", async () => {
  const script = `
    import { getRegistry, resolveMetricsConfig } from ${
    JSON.stringify(new URL("./mod.ts", import.meta.url).href)
  };
    const config = resolveMetricsConfig();
    getRegistry().counter("c").inc();
    console.log(JSON.stringify({ tags: config.globalTags, count: getRegistry().counter("c").getCount() }));
  `;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, script);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--no-config", file],
    env: { MP_METRICS_TAGS: "must=not-be-read" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(file);
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), {
    tags: [],
    count: 1,
  });
});

Deno.test("the global forms apply to every metric no named group matches", () => {
  const warnings: ConfigWarning[] = [];
  const config = new MetricsConfig({
    "mp.metrics.distribution.percentiles": "0.5,0.95,0.99;orders.*=0.9",
    "mp.metrics.distribution.histogram.buckets": "1,5,10",
    "mp.metrics.distribution.timer.buckets": "slow=1s;100ms,1s",
  }, (w) => warnings.push(w));
  assert.equal(warnings.length, 0);
  assert.deepEqual(config.percentilesFor("orders.placed"), [0.9]);
  assert.deepEqual(config.percentilesFor("other"), [0.5, 0.95, 0.99]);
  assert.deepEqual(config.histogramBucketsFor("sizes"), [1, 5, 10]);
  assert.deepEqual(config.timerBucketsFor("slow"), [1e9]);
  assert.deepEqual(config.timerBucketsFor("fast"), [100e6, 1e9]);
  // A named group wins wherever it stands; the last global group wins among globals.
  const ordered = new MetricsConfig({
    "mp.metrics.distribution.percentiles": "a=0.1;0.2;0.3",
  });
  assert.deepEqual(ordered.percentilesFor("a"), [0.1]);
  assert.deepEqual(ordered.percentilesFor("b"), [0.3]);
  // `*=` stays a named group: it beats the global form.
  const star = new MetricsConfig({
    "mp.metrics.distribution.percentiles": "*=0.4;0.6",
  });
  assert.deepEqual(star.percentilesFor("any"), [0.4]);
  // A global group with no valid value falls back to the defaults, with a warning.
  const bad = new MetricsConfig(
    { "mp.metrics.distribution.percentiles": "abc" },
    (w) => warnings.push(w),
  );
  assert.equal(bad.percentilesFor("x").length, 6);
  assert.deepEqual(warnings.map((w) => w.key), [
    "mp.metrics.distribution.percentiles",
  ]);
});

Deno.test("timer buckets take ns, us, µs, ms, s, m, h and d", () => {
  const warnings: ConfigWarning[] = [];
  const config = new MetricsConfig({
    "mp.metrics.distribution.timer.buckets":
      "t=500ns,250us,3µs,7,20ms,2s,1m,1h,1d,5w,1.5s",
  }, (w) => warnings.push(w));
  assert.deepEqual(config.timerBucketsFor("t"), [
    500,
    3e3,
    250e3,
    7e6,
    20e6,
    2e9,
    60e9,
    3600e9,
    86_400e9,
  ]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]?.message ?? "", /"5w", "1\.5s"/);
});

Deno.test("values round-trip, and env may be a function", () => {
  const config = resolveMetricsConfig({
    env: (name) => name === "MP_METRICS_TAGS" ? "zone=eu" : undefined,
    properties: { "mp.metrics.appName": "shop" },
    propertiesFile: null,
  });
  assert.deepEqual(config.values, {
    "mp.metrics.appName": "shop",
    "mp.metrics.tags": "zone=eu",
  });
  const copy = new MetricsConfig(config.values);
  assert.deepEqual(copy.globalTags, [["zone", "eu"]]);
  assert.equal(copy.appName, "shop");
});
