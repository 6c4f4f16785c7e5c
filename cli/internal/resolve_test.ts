import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { parseRunArgs, parseServeArgs } from "./args.ts";
import { resolveServeConfig } from "./resolve.ts";

const noEnv = () => undefined;

async function withDir(
  files: Record<string, string> | string[],
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const entries = Array.isArray(files)
    ? files.map((file) => [file, "x"] as const)
    : Object.entries(files);
  try {
    for (const [file, text] of entries) {
      const full = `${dir}/${file}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), {
        recursive: true,
      });
      await Deno.writeTextFile(full, text);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function load(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
) {
  return resolveServeConfig(parseServeArgs(args), {
    cwd: dir,
    env: (name) => env[name],
  });
}

Deno.test("resolveServeConfig() serves ./public when it exists, else the working directory", async () => {
  await withDir(["public/index.html"], async (dir) => {
    assert.equal((await load(dir, [])).root, `${dir}/public`);
  });
  await withDir(["index.html"], async (dir) => {
    assert.equal((await load(dir, [])).root, dir);
  });
  await withDir(["public/index.html"], async (dir) => {
    const run = await resolveServeConfig(parseRunArgs(["main.ts"]), {
      cwd: dir,
      env: noEnv,
    }).catch((error) => error);
    // The module is missing, but the directory was not taken for a root.
    assert.ok(run instanceof UsageError && run.code === "missing-file");
  });
});

Deno.test("resolveServeConfig() hints at --port for a number where the directory goes", async () => {
  await withDir(["index.html"], async (dir) => {
    for (const args of [["8000"], ["-d", "8000"]]) {
      await assert.rejects(
        load(dir, args),
        (e: unknown) =>
          e instanceof UsageError && e.code === "missing-root" &&
          /is not a directory; did you mean --port 8000\?$/.test(e.message),
      );
    }
    await assert.rejects(
      load(dir, ["www"]),
      (e: unknown) =>
        e instanceof UsageError &&
        /^Cannot use argument "www": ".*www" is not a directory$/.test(
          e.message,
        ),
    );
    await assert.rejects(
      resolveServeConfig(parseRunArgs(["8000"]), { cwd: dir, env: noEnv }),
      (e: unknown) =>
        e instanceof UsageError &&
        e.message ===
          "Cannot run 8000: no such file; did you mean --port 8000?",
    );
  });
});

Deno.test("resolveServeConfig() keeps fallbacks relative to the root and refuses ones outside it", async () => {
  await withDir(["404.html", "app/index.html"], async (dir) => {
    assert.equal(
      (await load(dir, ["--fallback", "/404.html"])).fallback,
      "404.html",
    );
    const spa = await load(dir, ["--spa-fallback", "app/index.html"]);
    assert.equal(spa.spaFallback, "app/index.html");
    assert.equal(spa.notFoundPage, true);
    await assert.rejects(
      load(dir, ["--fallback", "../etc/passwd"]),
      (e: unknown) =>
        e instanceof UsageError && e.code === "out-of-range" &&
        e.message.includes("--fallback"),
    );
    await assert.rejects(
      load(dir, ["--fallback", "app"]),
      (e: unknown) => e instanceof UsageError && e.code === "missing-file",
    );
    const off = await load(dir, [
      "--no-fallback",
      "--spa-fallback",
      "app/index.html",
    ]);
    assert.deepEqual([off.notFoundPage, off.spaFallback, off.fallback], [
      false,
      "app/index.html",
      undefined,
    ]);
  });
});

Deno.test("resolveServeConfig() lets a higher source's fallback replace the file's other one", async () => {
  await withDir({
    "404.html": "x",
    "index.html": "x",
    "site.yaml": "static:\n  fallback: 404.html\n",
  }, async (dir) => {
    const config = await load(dir, [
      "--config",
      "site.yaml",
      "--spa-fallback",
      "index.html",
    ]);
    assert.deepEqual([config.fallback, config.spaFallback], [
      undefined,
      "index.html",
    ]);
    const env = await load(dir, ["--config", "site.yaml"], {
      SERVICE_SPA_FALLBACK: "index.html",
    });
    assert.deepEqual([env.fallback, env.spaFallback], [
      undefined,
      "index.html",
    ]);
    const file = await load(dir, ["--config", "site.yaml"]);
    assert.deepEqual([file.fallback, file.spaFallback], [
      "404.html",
      undefined,
    ]);
  });
});

Deno.test("resolveServeConfig() names the YAML key and position of a missing root", async () => {
  await withDir(["conf/site.yaml"], async (dir) => {
    await Deno.writeTextFile(
      `${dir}/conf/site.yaml`,
      "static:\n  root: ../www\n",
    );
    await assert.rejects(
      load(dir, ["--config", "conf/site.yaml"]),
      (e: unknown) =>
        e instanceof UsageError && e.code === "missing-root" &&
        e.message.startsWith("Cannot use static.root") &&
        !e.message.includes("--port") &&
        e.position?.line === 2 && e.position.column === 9,
    );
    await Deno.mkdir(`${dir}/www`);
    assert.equal(
      (await load(dir, ["--config", "conf/site.yaml"])).root,
      `${dir}/www`,
    );
  });
});

Deno.test("resolveServeConfig() lists the mistakes of the environment and of the file together", async () => {
  await withDir(
    { "site.yaml": "server:\n  port: abc\nstatic:\n  gzip: yes\n" },
    async (dir) => {
      await assert.rejects(
        load(dir, ["--config", "site.yaml"], { SERVICE_WORKERS: "lots" }),
        (e: unknown) =>
          e instanceof UsageError &&
          e.problems.map((p) => p.message.split(":")[0]).join("|") ===
            'Cannot use SERVICE_WORKERS "lots"|Cannot use server.port|Cannot use static.gzip',
      );
      // The file may also be named by the environment.
      await assert.rejects(
        load(dir, [], { SERVICE_CONFIG: "site.yaml" }),
        (e: unknown) => e instanceof UsageError && e.problems.length === 2,
      );
      await assert.rejects(
        load(dir, [], { SERVICE_CONFIG: "gone.yaml" }),
        (e: unknown) =>
          e instanceof UsageError &&
          e.message === 'Cannot read SERVICE_CONFIG "gone.yaml": no such file',
      );
    },
  );
});

Deno.test("resolveServeConfig() turns --workers auto into the CPU count", async () => {
  await withDir(["index.html"], async (dir) => {
    const config = await load(dir, ["--workers", "auto"]);
    assert.equal(config.workers, navigator.hardwareConcurrency);
  });
});

Deno.test("resolveServeConfig() delays the stop by 5 s with a readiness path, unless told", async () => {
  await withDir(["index.html"], async (dir) => {
    const plain = await load(dir, []);
    assert.deepEqual(
      [plain.drainDelayMs, plain.readyPath, plain.healthPath],
      [undefined, undefined, undefined],
    );
    const ready = await load(dir, [
      "--ready",
      "/readyz",
      "--health",
      "/healthz",
    ]);
    assert.deepEqual(
      [ready.drainDelayMs, ready.readyPath, ready.healthPath],
      [5000, "/readyz", "/healthz"],
    );
    assert.equal(
      (await load(dir, ["--ready", "/readyz", "--drain-delay", "0"]))
        .drainDelayMs,
      undefined,
    );
    assert.equal((await load(dir, ["--drain-delay", "2s"])).drainDelayMs, 2000);
    assert.equal(
      (await load(dir, ["--proxy-protocol=v2"])).proxyProtocol,
      "v2",
    );
  });
});

Deno.test("resolveServeConfig() adds headers.staging after headers.always when STAGING=true, and --header last", async () => {
  await withDir({
    "site.yaml":
      "headers:\n  always:\n    X-A: yaml\n    X-B: yaml\n  staging:\n    X-B: staging\n    X-S: on\n",
  }, async (dir) => {
    const args = ["--config", "site.yaml"];
    assert.deepEqual((await load(dir, args)).headers, [["X-A", "yaml"], [
      "X-B",
      "yaml",
    ]]);
    const staging = await load(
      dir,
      [
        ...args,
        "--header",
        "x-a=flag",
        "--header",
        "X-C=flag",
        "--header",
        "X-S=flag",
      ],
      { STAGING: "true" },
    );
    assert.equal(staging.staging, true);
    assert.deepEqual(staging.headers, [
      ["x-a", "flag"],
      ["X-B", "staging"],
      ["X-S", "flag"],
      ["X-C", "flag"],
    ]);
    assert.equal((await load(dir, args, { STAGING: "yes" })).staging, false);
  });
});

Deno.test("resolveServeConfig() turns the access log on when a format is named, unless a source turns it off", async () => {
  await withDir(["index.html"], async (dir) => {
    assert.equal((await load(dir, [])).accessLog, false);
    assert.equal((await load(dir, ["--log-format", "json"])).accessLog, true);
    assert.equal(
      (await load(dir, [], { SERVICE_LOG_FORMAT: "json" })).accessLog,
      true,
    );
    assert.equal(
      (await load(dir, ["--log-format", "json", "--no-access-log"])).accessLog,
      false,
    );
    assert.equal(
      (await load(dir, ["--log-format", "json"], {
        SERVICE_ACCESS_LOG: "false",
      })).accessLog,
      false,
    );
  });
});

Deno.test("resolveServeConfig() names swapped TLS files by their PEM headers", async () => {
  const key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
  const ecKey =
    "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n";
  const cert = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
  await withDir(
    { "key.pem": key, "ec.pem": ecKey, "cert.pem": cert },
    async (dir) => {
      await assert.rejects(
        load(dir, ["--tls-cert", "key.pem", "--tls-key", "cert.pem"]),
        (e: unknown) =>
          e instanceof UsageError && e.code === "conflict" &&
          /^Cannot use --tls-cert ".*key\.pem" with --tls-key ".*cert\.pem": they are swapped .*: write --tls-cert ".*cert\.pem" and --tls-key ".*key\.pem"$/
            .test(e.message),
      );
      await assert.rejects(
        load(dir, ["--tls-cert", "ec.pem", "--tls-key", "key.pem"]),
        (e: unknown) =>
          e instanceof UsageError &&
          /^Cannot use --tls-cert ".*ec\.pem": it holds a private key, not a certificate \(give it to --tls-key\)$/
            .test(e.message),
      );
      await assert.rejects(
        load(dir, ["--tls-cert", "cert.pem", "--tls-key", "cert.pem"]),
        (e: unknown) =>
          e instanceof UsageError &&
          /^Cannot use --tls-key ".*cert\.pem": it holds a certificate, not a private key/
            .test(e.message),
      );
    },
  );
});
