import assert from "node:assert/strict";
import { makeSite, runCli } from "./cli_launcher.ts";

interface BadCase {
  name: string;
  args: string[];
  /** Written to `site.yaml` in the temporary root and passed with `--config`. */
  yaml?: string;
  env?: Record<string, string>;
  code: number;
  /** What the one line on standard error must say; `ROOT` stands for the site. */
  line: RegExp;
}

const CASES: BadCase[] = [
  {
    name: "unknown flag",
    args: ["--prot", "80"],
    code: 2,
    line: /Unknown flag "--prot": did you mean "--port"\?/,
  },
  {
    name: "unknown command",
    args: [],
    code: 2,
    line: /Unknown command "serv": did you mean "serve"\?/,
  },
  {
    name: "port not a number",
    args: ["--port", "abc"],
    code: 2,
    line: /--port "abc": expected an integer from 0 to 65535/,
  },
  {
    name: "port out of range",
    args: ["--port", "70000"],
    code: 2,
    line: /--port "70000"/,
  },
  {
    name: "flag without value",
    args: ["--root"],
    code: 2,
    line: /--root: expected a value/,
  },
  {
    name: "malformed --header",
    args: ["--header", "X-A"],
    code: 2,
    line: /--header "X-A": expected KEY=VALUE/,
  },
  {
    name: "bad --workers",
    args: ["--workers", "lots"],
    code: 2,
    line: /--workers "lots"/,
  },
  {
    name: "both fallback flags",
    args: ["--fallback", "a.html", "--spa-fallback", "b.html"],
    code: 2,
    line: /--fallback together with --spa-fallback/,
  },
  {
    name: "missing root",
    args: ["--root", "/nonexistent/site"],
    code: 2,
    line: /--root: "\/nonexistent\/site" is not a directory/,
  },
  {
    name: "missing fallback file",
    args: ["--fallback", "gone.html"],
    code: 2,
    line: /--fallback: no file "gone\.html"/,
  },
  {
    name: "unreadable TLS file",
    args: [
      "--tls-cert",
      "/nonexistent/c.pem",
      "--tls-key",
      "/nonexistent/k.pem",
    ],
    code: 2,
    line: /Cannot read --tls-cert "\/nonexistent\/c\.pem": no such file/,
  },
  {
    name: "TLS cert without key",
    args: ["--tls-cert", "c.pem"],
    code: 2,
    line: /--tls-cert without --tls-key/,
  },
  {
    name: "TLS file not PEM",
    args: ["--tls-cert", "ROOT/index.html", "--tls-key", "ROOT/index.html"],
    code: 2,
    line: /--tls-cert ".*index\.html": .*not a PEM file/,
  },
  {
    name: "missing --config file",
    args: ["--config", "/nonexistent/site.yaml"],
    code: 2,
    line: /Cannot read --config "\/nonexistent\/site\.yaml": no such file/,
  },
  {
    name: "unknown YAML key",
    args: [],
    yaml: "server:\n  prot: 80\n",
    code: 2,
    line:
      /site\.yaml:2:3: Unknown key "server\.prot": did you mean "server\.port"\?/,
  },
  {
    name: "wrong YAML type",
    args: [],
    yaml: "server:\n  port: abc\n",
    code: 2,
    line:
      /site\.yaml:2:9: Cannot use server\.port: expected an integer from 0 to 65535, got "abc"/,
  },
  {
    name: "YAML port out of range",
    args: [],
    yaml: "server:\n  port: 99999\n",
    code: 2,
    line: /site\.yaml:2:9: Cannot use server\.port 99999/,
  },
  {
    name: "YAML bool",
    args: [],
    yaml: "static:\n  gzip: yes\n",
    code: 2,
    line: /site\.yaml:2:9: Cannot use static\.gzip: expected true or false/,
  },
  {
    name: "both fallbacks in YAML",
    args: [],
    yaml: "static:\n  fallback: index.html\n  spa-fallback: index.html\n",
    code: 2,
    line:
      /site\.yaml:3:\d+: Cannot use static\.fallback together with static\.spa-fallback/,
  },
  {
    name: "YAML syntax error",
    args: [],
    yaml: "server:\n  port: [1,\n  bind: x\n",
    code: 2,
    line: /site\.yaml:3:3: Cannot parse the YAML file/,
  },
  {
    name: "YAML tag that does not fit",
    args: [],
    yaml: "server:\n  port: !!str 80\n",
    code: 2,
    line: /site\.yaml:2:\d+: Cannot use server\.port/,
  },
  {
    name: "YAML multi-line value that does not fit",
    args: [],
    yaml: "static:\n  cache-control: |\n    a\n    b\n",
    code: 2,
    line: /site\.yaml:2:\d+: Cannot use static\.cache-control/,
  },
  {
    name: "a number where the directory goes",
    args: ["8000"],
    code: 2,
    line:
      /Cannot use argument "8000": ".*8000" is not a directory; did you mean --port 8000\?$/,
  },
  {
    name: "a value for a flag that takes none",
    args: ["--dir-listing=false"],
    code: 2,
    line:
      /Cannot use --dir-listing: it takes no value, got "false" \(write --no-dir-listing\)$/,
  },
  {
    name: "a bad environment variable",
    args: [],
    env: { SERVICE_PORT: "http" },
    code: 2,
    line:
      /Cannot use SERVICE_PORT "http": expected an integer from 0 to 65535$/,
  },
  {
    name: "a section's key at the top level",
    args: [],
    yaml: "port: 8080\n",
    code: 2,
    line: /site\.yaml:1:1: Unknown key "port": did you mean "server\.port"\?$/,
  },
  {
    name: "YAML missing root",
    args: [],
    yaml: "\n\nstatic:\n  root: nowhere\n",
    code: 2,
    line:
      /site\.yaml:4:9: Cannot use static\.root: ".*nowhere" is not a directory/,
  },
];

Deno.test("serve exits 2 with one line naming the flag or key for every mistake", async (t) => {
  const root = await makeSite({ "index.html": "<h1>home</h1>" });
  try {
    for (const bad of CASES) {
      await t.step(bad.name, async () => {
        const args = bad.args.map((arg) => arg.replace("ROOT", root));
        if (bad.yaml !== undefined) {
          await Deno.writeTextFile(`${root}/site.yaml`, bad.yaml);
          args.push("--config", "site.yaml");
        }
        const command = bad.name === "unknown command"
          ? ["serv"]
          : ["serve", ...args];
        const result = await runCli(command, { cwd: root, env: bad.env ?? {} });
        assert.equal(result.code, bad.code, `${bad.name}: ${result.stderr}`);
        const lines = result.stderr.split("\n").filter((line) => line !== "");
        assert.equal(lines.length, 1, `${bad.name}: ${result.stderr}`);
        assert.match(lines[0]!, /^httpd-cli: /, bad.name);
        assert.match(lines[0]!, bad.line, bad.name);
        assert.equal(result.stdout, "", bad.name);
      });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve lists every mistake of the YAML file, one line each, and exits 2", async () => {
  const root = await makeSite({
    "index.html": "<h1>home</h1>",
    "site.yaml":
      "port: 8080\nserver:\n  prot: 1\nstatic:\n  gzip: yes\nlogging:\n  level: loud\n",
  });
  try {
    const result = await runCli(["serve", "--config", "site.yaml"], {
      cwd: root,
    });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, "");
    assert.deepEqual(result.stderr.trimEnd().split("\n"), [
      'httpd-cli: site.yaml:1:1: Unknown key "port": did you mean "server.port"?',
      'httpd-cli: site.yaml:3:3: Unknown key "server.prot": did you mean "server.port"?',
      'httpd-cli: site.yaml:5:9: Cannot use static.gzip: expected true or false, got "yes"',
      'httpd-cli: site.yaml:7:10: Cannot use logging.level "loud": expected one of debug, info, warn, error, off',
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve exits 1 naming the address when the port is in use", async () => {
  const root = await makeSite({ "index.html": "<h1>home</h1>" });
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  try {
    const result = await runCli([
      "serve",
      "--root",
      root,
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
    ]);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr.trim(),
      `httpd-cli: Cannot listen on 127.0.0.1:${port}: address already in use; ` +
        "stop the process listening there, or choose another port with --port (0 picks a free one)",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
