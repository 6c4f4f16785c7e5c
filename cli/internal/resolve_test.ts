import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { parseServeArgs } from "./args.ts";
import { resolveServeConfig } from "./resolve.ts";

const noEnv = () => undefined;

async function withDir(
  files: string[],
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    for (const file of files) {
      const full = `${dir}/${file}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), {
        recursive: true,
      });
      await Deno.writeTextFile(full, "x");
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("resolveServeConfig() serves ./public when it exists, else the working directory", async () => {
  await withDir(["public/index.html"], async (dir) => {
    const config = await resolveServeConfig(parseServeArgs([]), {
      cwd: dir,
      env: noEnv,
    });
    assert.equal(config.root, `${dir}/public`);
  });
  await withDir(["index.html"], async (dir) => {
    const config = await resolveServeConfig(parseServeArgs([]), {
      cwd: dir,
      env: noEnv,
    });
    assert.equal(config.root, dir);
  });
});

Deno.test("resolveServeConfig() keeps fallbacks relative to the root and refuses ones outside it", async () => {
  await withDir(["404.html", "app/index.html"], async (dir) => {
    const a = await resolveServeConfig(
      parseServeArgs(["--fallback", "/404.html"]),
      { cwd: dir, env: noEnv },
    );
    assert.equal(a.fallback, "404.html");
    const b = await resolveServeConfig(
      parseServeArgs(["--spa-fallback", "app/index.html"]),
      { cwd: dir, env: noEnv },
    );
    assert.equal(b.spaFallback, "app/index.html");
    await assert.rejects(
      resolveServeConfig(parseServeArgs(["--fallback", "../etc/passwd"]), {
        cwd: dir,
        env: noEnv,
      }),
      (e: unknown) =>
        e instanceof UsageError && e.code === "out-of-range" &&
        e.message.includes("--fallback"),
    );
    await assert.rejects(
      resolveServeConfig(parseServeArgs(["--fallback", "app"]), {
        cwd: dir,
        env: noEnv,
      }),
      (e: unknown) => e instanceof UsageError && e.code === "missing-file",
    );
  });
});

Deno.test("resolveServeConfig() names the YAML key and position of a missing root", async () => {
  await withDir(["conf/site.yaml"], async (dir) => {
    await Deno.writeTextFile(
      `${dir}/conf/site.yaml`,
      "static:\n  root: ../www\n",
    );
    await assert.rejects(
      resolveServeConfig(parseServeArgs(["--config", "conf/site.yaml"]), {
        cwd: dir,
        env: noEnv,
      }),
      (e: unknown) =>
        e instanceof UsageError && e.code === "missing-root" &&
        e.message.startsWith("Cannot use static.root") &&
        e.position?.line === 2 && e.position.column === 9,
    );
    await Deno.mkdir(`${dir}/www`);
    const config = await resolveServeConfig(
      parseServeArgs(["--config", "conf/site.yaml"]),
      { cwd: dir, env: noEnv },
    );
    assert.equal(config.root, `${dir}/www`);
  });
});

Deno.test("resolveServeConfig() turns --workers auto into the CPU count", async () => {
  await withDir(["index.html"], async (dir) => {
    const config = await resolveServeConfig(
      parseServeArgs(["--workers", "auto"]),
      { cwd: dir, env: noEnv },
    );
    assert.equal(config.workers, navigator.hardwareConcurrency);
  });
});

Deno.test("resolveServeConfig() delays the stop by 5 s with a readiness path, unless told", async () => {
  await withDir(["index.html"], async (dir) => {
    const load = (args: string[]) =>
      resolveServeConfig(parseServeArgs(args), { cwd: dir, env: noEnv });
    const plain = await load([]);
    assert.deepEqual(
      [plain.drainDelayMs, plain.readyPath, plain.healthPath],
      [undefined, undefined, undefined],
    );
    const ready = await load(["--ready", "/readyz", "--health", "/healthz"]);
    assert.deepEqual(
      [ready.drainDelayMs, ready.readyPath, ready.healthPath],
      [5000, "/readyz", "/healthz"],
    );
    assert.equal(
      (await load(["--ready", "/readyz", "--drain-delay", "0"])).drainDelayMs,
      undefined,
    );
    assert.equal((await load(["--drain-delay", "2s"])).drainDelayMs, 2000);
    assert.equal(
      (await load(["--proxy-protocol=v2"])).proxyProtocol,
      "v2",
    );
  });
});

Deno.test("resolveServeConfig() refuses a probe path that another answer has", async () => {
  await withDir(["index.html"], async (dir) => {
    const load = (args: string[]) =>
      resolveServeConfig(parseServeArgs(args), { cwd: dir, env: noEnv });
    for (
      const args of [
        ["--health", "/z", "--ready", "/z"],
        ["--metrics", "--ready", "/metrics"],
        ["--metrics=/m", "--health", "/m"],
      ]
    ) {
      await assert.rejects(
        load(args),
        (e) => e instanceof UsageError && e.code === "conflict",
        args.join(" "),
      );
    }
    // Metrics on their own address leave the path free on the site.
    const config = await load([
      "--metrics",
      "--metrics-bind",
      "9100",
      "--ready",
      "/metrics",
    ]);
    assert.equal(config.readyPath, "/metrics");
  });
});
