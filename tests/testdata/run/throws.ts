/** A module whose top-level code throws: `httpd-cli run` exits with 1. */
if (!Deno.env.get("HTTPD_CLI_TEST_NEVER_SET")) {
  throw new Error("no DATABASE_URL");
}

export default { fetch: (): Response => new Response("never") };
