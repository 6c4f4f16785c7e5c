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
