// Benchmark peer: Deno.serve answering "Hello, World!" (13 bytes).
const port = Number(Deno.args[0] ?? 8080);
Deno.serve({
  port,
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`ready ${port}`),
}, () => new Response("Hello, World!"));
