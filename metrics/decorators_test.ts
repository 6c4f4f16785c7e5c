import assert from "node:assert/strict";
import { counted, gauge, metric, timed } from "./decorators.ts";
import { MetricRegistries } from "./registries.ts";
import { MetricID } from "./metric_id.ts";
import type { Counter } from "./counter.ts";
import type { Histogram } from "./histogram.ts";
import type { Timer } from "./timer.ts";
import { MetricConflictError, MetricStateError } from "./errors.ts";
import { MetricUnits } from "./units.ts";

function fresh() {
  const registries = new MetricRegistries();
  return { registries, app: registries.get() };
}

function names(registries: MetricRegistries, scope = "application"): string[] {
  return registries.get(scope).getMetricIDs().map((id) => id.name);
}

function assertCode(
  fn: () => unknown,
  cls: new (...a: never[]) => Error,
  code: string,
): void {
  assert.throws(
    fn,
    (e: unknown) => e instanceof cls && (e as { code?: string }).code === code,
  );
}

Deno.test("@counted / @timed on methods follow MicroProfile's naming table", () => {
  const { registries } = fresh();
  class Colours {
    @counted({ registries })
    red(): void {}
    @counted({ name: "blueCount", registries })
    blue(): void {}
    @counted({ name: "greenCount", absolute: true, registries })
    green(): void {}
    @counted({ absolute: true, registries })
    yellow(): void {}
    @timed({ registries })
    timedMethod(): void {}
    @timed({ absolute: true, registries })
    absoluteTimedMethod(): void {}
  }
  new Colours();
  assert.deepEqual(names(registries), [
    "Colours.blueCount",
    "Colours.red",
    "Colours.timedMethod",
    "absoluteTimedMethod",
    "greenCount",
    "yellow",
  ]);
  assert.equal(
    registries.get().getMetadata("Colours.timedMethod")?.unit,
    "nanoseconds",
  );
});

Deno.test("@counted increments before the call returns, and a throwing call counts", () => {
  const { registries, app } = fresh();
  let seen = -1;
  class Bean {
    @counted({ name: "countedMethod", absolute: true, registries })
    run(fail: boolean): void {
      seen = app.getCounter(new MetricID("countedMethod"))!.getCount();
      if (fail) throw new Error("boom");
    }
  }
  const bean = new Bean();
  assert.equal(app.getCounter(new MetricID("countedMethod"))?.getCount(), 0);
  bean.run(false);
  assert.equal(seen, 1);
  assert.throws(() => bean.run(true), /boom/);
  assert.equal(app.getCounter(new MetricID("countedMethod"))?.getCount(), 2);
});

Deno.test("@timed on an async method measures until the promise settles, rejections included", async () => {
  const { registries, app } = fresh();
  class Slow {
    @timed({ registries })
    async wait(ms: number, fail = false): Promise<string> {
      await new Promise((resolve) => setTimeout(resolve, ms));
      if (fail) throw new Error("late failure");
      return "done";
    }
  }
  const slow = new Slow();
  assert.equal(await slow.wait(30), "done");
  await assert.rejects(slow.wait(10, true), /late failure/);
  const timer = app.getTimer(new MetricID("Slow.wait"))!;
  assert.equal(timer.getCount(), 2);
  assert.ok(timer.getSnapshot().max >= 25e6, `max ${timer.getSnapshot().max}`);
  assert.ok(timer.getElapsedTime() >= 35e6);
});

Deno.test("class-level @counted covers public methods, inherited ones and the constructor, not #private", () => {
  const { registries, app } = fresh();
  class Parent {
    inherited(): string {
      return "parent";
    }
  }
  @counted({ name: "countedClass", registries })
  class CountedClassBean extends Parent {
    countedMethodOne(): number {
      return this.#hidden();
    }
    countedMethodTwo(): void {}
    #hidden(): number {
      return 1;
    }
    static helper(): void {}
  }
  // Registered at class definition, before any instance.
  assert.deepEqual(names(registries), [
    "countedClass.CountedClassBean",
    "countedClass.countedMethodOne",
    "countedClass.countedMethodTwo",
    "countedClass.inherited",
  ]);
  const bean = new CountedClassBean();
  new CountedClassBean();
  assert.equal(bean.countedMethodOne(), 1);
  assert.equal(bean.inherited(), "parent");
  assert.equal(
    app.getCounter(new MetricID("countedClass.CountedClassBean"))?.getCount(),
    2,
  );
  assert.equal(
    app.getCounter(new MetricID("countedClass.countedMethodOne"))?.getCount(),
    1,
  );
  assert.equal(
    app.getCounter(new MetricID("countedClass.inherited"))?.getCount(),
    1,
  );
  assert.equal(CountedClassBean.name, "CountedClassBean");
  assert.ok(bean instanceof Parent);
});

Deno.test("class-level @timed without a name uses the class name, and times the constructor", () => {
  const { registries, app } = fresh();
  @timed({ registries })
  class TimedClassBean {
    toString(): string {
      return "timed";
    }
    work(): void {}
  }
  const bean = new TimedClassBean();
  assert.equal(String(bean), "timed");
  assert.equal(
    app.getTimer(new MetricID("TimedClassBean.TimedClassBean"))?.getCount(),
    1,
  );
  assert.equal(
    app.getTimer(new MetricID("TimedClassBean.toString"))?.getCount(),
    1,
  );
  assert.equal(
    app.getTimer(new MetricID("TimedClassBean.work"))?.getCount(),
    0,
  );
});

Deno.test("an undecorated subclass of a class-level @timed class is instrumented under its own name", () => {
  const { registries, app } = fresh();
  @timed({ registries })
  class AbstractTimedBean {
    timedMethod(): void {}
  }
  class ConcreteExtendedTimedBean extends AbstractTimedBean {
    anotherTimedMethod(): void {}
  }
  const bean = new ConcreteExtendedTimedBean();
  bean.anotherTimedMethod();
  bean.timedMethod();
  assert.equal(
    app.getTimer(new MetricID("ConcreteExtendedTimedBean.anotherTimedMethod"))
      ?.getCount(),
    1,
  );
  assert.equal(
    app.getTimer(new MetricID("ConcreteExtendedTimedBean.timedMethod"))
      ?.getCount(),
    1,
  );
});

Deno.test("a method-level decorator wins over the class-level one of the same kind", () => {
  const { registries, app } = fresh();
  @counted({ registries })
  class Both {
    @counted({ name: "special", absolute: true, registries })
    a(): void {}
    b(): void {}
  }
  new Both().a();
  assert.equal(app.getCounter(new MetricID("special"))?.getCount(), 1);
  assert.equal(app.getCounter(new MetricID("Both.a")), undefined);
  assert.ok(app.getCounter(new MetricID("Both.b")));
});

Deno.test("inherited method-level metrics keep the declaring class's name; instances share them", () => {
  const { registries, app } = fresh();
  class VisibilityTimedMethodBean {
    @timed({ registries })
    publicTimedMethod(): void {}
  }
  class Child extends VisibilityTimedMethodBean {}
  new Child().publicTimedMethod();
  new VisibilityTimedMethodBean().publicTimedMethod();
  assert.equal(
    app.getTimer(new MetricID("VisibilityTimedMethodBean.publicTimedMethod"))
      ?.getCount(),
    2,
  );
  assert.equal(
    app.getTimer(new MetricID("Child.publicTimedMethod")),
    undefined,
  );
});

Deno.test("ReusedMetricsTest: two methods with one absolute name share one metric", () => {
  const { registries, app } = fresh();
  class MetricAppBean2 {
    @counted({ name: "countMe2", absolute: true, registries })
    countMeA(): void {}
    @counted({ name: "countMe2", absolute: true, registries })
    countMeB(): void {}
    @timed({ name: "timeMe2", absolute: true, registries })
    timeMeA(): void {}
    @timed({ name: "timeMe2", absolute: true, registries })
    timeMeB(): void {}
  }
  const bean = new MetricAppBean2();
  bean.countMeA();
  bean.timeMeA();
  bean.countMeB();
  bean.timeMeB();
  assert.equal(app.getCounter(new MetricID("countMe2"))?.getCount(), 2);
  assert.equal(app.getTimer(new MetricID("timeMe2"))?.getCount(), 2);
});

Deno.test("reuse with other metadata or another type is a conflict at registration", () => {
  const { registries } = fresh();
  class Conflicting {
    @counted({ name: "shared", absolute: true, description: "one", registries })
    a(): void {}
    @counted({ name: "shared", absolute: true, description: "two", registries })
    b(): void {}
  }
  assertCode(() => new Conflicting(), MetricConflictError, "METADATA_CONFLICT");
  @counted({ name: "kind", registries })
  class A {}
  class B {
    @timed({ name: "kind.A", absolute: true, registries })
    m(): void {}
  }
  void A;
  assertCode(() => new B(), MetricConflictError, "TYPE_CONFLICT");
});

Deno.test("a member whose metric was removed throws METRIC_REMOVED and leaves the count", () => {
  const { registries, app } = fresh();
  class Bean {
    @counted({ registries })
    c(): void {}
    @timed({ registries })
    t(): void {}
  }
  const bean = new Bean();
  bean.c();
  const counter = app.getCounter(new MetricID("Bean.c"))!;
  app.remove("Bean.c");
  app.remove("Bean.t");
  assertCode(() => bean.c(), MetricStateError, "METRIC_REMOVED");
  assertCode(() => bean.t(), MetricStateError, "METRIC_REMOVED");
  assert.equal(counter.getCount(), 1);
});

Deno.test("static methods are registered at class definition; tags take key=value strings", () => {
  const { registries, app } = fresh();
  class Util {
    @counted({
      tags: ["number=one", "ignored", "=x", "colour=red"],
      registries,
    })
    static helper(): void {}
  }
  assert.equal(
    app.getCounter(
      new MetricID("Util.helper", { number: "one", colour: "red" }),
    )?.getCount(),
    0,
  );
  Util.helper();
  assert.equal(
    app.getCounter(
      new MetricID("Util.helper", { number: "one", colour: "red" }),
    )?.getCount(),
    1,
  );
});

Deno.test("decorators refuse #private methods and other targets with INVALID_DECORATOR", () => {
  const { registries } = fresh();
  assertCode(
    () => {
      class P {
        @counted({ registries })
        #secret(): void {}
      }
      void P;
    },
    MetricStateError,
    "INVALID_DECORATOR",
  );
});

Deno.test("@gauge on a method and a getter registers at construction and re-reads each time", () => {
  const { registries, app } = fresh();
  class GaugeMethodBean {
    value = 0;
    @gauge({ name: "gaugeMethod", unit: MetricUnits.NONE, registries })
    read(): number {
      return this.value;
    }
    @gauge({ unit: MetricUnits.BYTES, tags: { pool: "main" }, registries })
    get size(): number {
      return this.value * 2;
    }
  }
  assert.equal(
    app.getGauge(new MetricID("GaugeMethodBean.gaugeMethod")),
    undefined,
  );
  const bean = new GaugeMethodBean();
  bean.value = 21;
  assert.equal(
    app.getGauge(new MetricID("GaugeMethodBean.gaugeMethod"))?.getValue(),
    21,
  );
  assert.equal(
    app.getGauge(new MetricID("GaugeMethodBean.size", { pool: "main" }))
      ?.getValue(),
    42,
  );
  assert.equal(app.getMetadata("GaugeMethodBean.size")?.unit, "bytes");
});

Deno.test("@gauge requires a unit, a number, and one instance", () => {
  const { registries } = fresh();
  assert.throws(() => gauge({} as { unit: string }), TypeError);
  class NotANumber {
    @gauge({ unit: "none", registries })
    text(): string {
      return "nope";
    }
  }
  assertCode(() => new NotANumber(), MetricStateError, "INVALID_GAUGE");
  class Single {
    @gauge({ unit: "none", registries })
    one(): number {
      return 1;
    }
  }
  new Single();
  assertCode(() => new Single(), MetricConflictError, "DUPLICATE_GAUGE");
});

Deno.test("@gauge reading an uninitialised field is checked once the constructor returns", async () => {
  const { registries, app } = fresh();
  class Late {
    count = 5;
    @gauge({ unit: "none", registries })
    read(): number | undefined {
      return this.count;
    }
  }
  new Late();
  await Promise.resolve();
  assert.equal(app.getGauge(new MetricID("Late.read"))?.getValue(), 5);
  // A member that still returns no number stops the program with INVALID_GAUGE.
  const script = `
    import { gauge } from ${
    JSON.stringify(new URL("./decorators.ts", import.meta.url).href)
  };
    class Broken {
      label = "text";
      @gauge({ unit: "none" })
      read() { return this.label; }
    }
    new Broken();
  `;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, script);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--no-config", "--no-check", file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(file);
  assert.notEqual(out.code, 0);
  assert.match(
    new TextDecoder().decode(out.stderr),
    /INVALID_GAUGE|Broken\.read/,
  );
});

Deno.test("MultipleMetricsMethodBeanTest: @counted, @gauge and @timed on one method", () => {
  const { registries, app } = fresh();
  class MultipleMetricsMethodBean {
    @counted({ name: "counter", registries })
    @gauge({ name: "gauge", unit: MetricUnits.NONE, registries })
    @timed({ name: "timer", registries })
    metricsMethod(): number {
      return 1234;
    }
  }
  new MultipleMetricsMethodBean();
  assert.deepEqual(names(registries), [
    "MultipleMetricsMethodBean.counter",
    "MultipleMetricsMethodBean.gauge",
    "MultipleMetricsMethodBean.timer",
  ]);
  assert.equal(
    app.getGauge(new MetricID("MultipleMetricsMethodBean.gauge"))?.getValue(),
    1234,
  );
});

Deno.test("@metric injects shared counters, histograms and timers into accessor fields", () => {
  const { registries, app } = fresh();
  class TimerInjectionBean {
    @timed({ name: "timed", registries })
    work(): void {}
    @metric({ type: "timer", name: "timed", registries })
    accessor timer!: Timer;
    @metric({ type: "counter", registries })
    accessor counterName!: Counter;
    @metric({
      type: "histogram",
      name: "histogramName",
      absolute: true,
      unit: "bytes",
      registries,
    })
    accessor histogram!: Histogram;
  }
  const a = new TimerInjectionBean();
  const b = new TimerInjectionBean();
  a.work();
  assert.equal(a.timer, app.getTimer(new MetricID("TimerInjectionBean.timed")));
  assert.equal(a.timer.getCount(), 1);
  a.counterName.inc(3);
  assert.equal(b.counterName.getCount(), 3);
  a.histogram.update(7);
  assert.equal(
    app.getHistogram(new MetricID("histogramName"))?.getSnapshot().max,
    7,
  );
  assert.throws(() => {
    (a as { counterName: unknown }).counterName = null;
  }, TypeError);
  assert.throws(() => metric({ type: "gauge" as "counter" }), TypeError);
});

Deno.test("decorators use the scope option", () => {
  const { registries } = fresh();
  class Scoped {
    @counted({
      scope: "customScopeA",
      name: "sharedMetricName",
      absolute: true,
      registries,
    })
    a(): void {}
  }
  new Scoped().a();
  assert.deepEqual(names(registries, "customScopeA"), ["sharedMetricName"]);
  assert.deepEqual(names(registries), []);
});
