// Benchmark peer: Deno.serve with Deno.upgradeWebSocket, echoing every message.
Deno.serve({
  port: Number(Deno.args[0] ?? 8080),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`ready ${port}`),
}, (req) => {
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.binaryType = "arraybuffer";
  socket.onmessage = (e) => socket.send(e.data);
  return response;
});
