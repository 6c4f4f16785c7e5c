// Talks to an echo WebSocket with the npm `ws` client and prints one JSON
// line: what was negotiated and whether every echo matched.
// Usage: node ws_echo.mjs URL COUNT COMPRESS(0|1) [PROTOCOL]
import WebSocket from "ws";

const [url, countText, compressText, protocol] = process.argv.slice(2);
const count = Number(countText);
const ws = new WebSocket(url, protocol ? [protocol] : [], {
  perMessageDeflate: compressText === "1",
  rejectUnauthorized: false,
});
ws.binaryType = "nodebuffer";

/** Messages of several kinds and sizes, some above the 1 KiB threshold. */
function message(i) {
  switch (i % 4) {
    case 0:
      return `text ${i} ✓`;
    case 1:
      return Buffer.from(
        Array.from({ length: 100 + i }, (_, k) => (k * i) & 0xff),
      );
    case 2:
      return `repeat ${i} `.repeat(300);
    default:
      return Buffer.alloc(70_000, i & 0xff);
  }
}

const timer = setTimeout(() => {
  console.log(JSON.stringify({ ok: false, error: "timed out" }));
  process.exit(1);
}, 20_000);

ws.on("open", () => {
  let next = 0;
  let mismatches = 0;
  ws.on("message", (data, isBinary) => {
    const sent = message(next);
    const same = typeof sent === "string"
      ? !isBinary && data.toString("utf8") === sent
      : isBinary && Buffer.compare(data, sent) === 0;
    if (!same) mismatches++;
    next++;
    if (next === count) ws.close(1000, "done");
    else ws.send(message(next));
  });
  ws.on("close", (code, reason) => {
    clearTimeout(timer);
    console.log(JSON.stringify({
      ok: mismatches === 0 && next === count,
      echoed: next,
      mismatches,
      extensions: ws.extensions,
      protocol: ws.protocol,
      code,
      reason: reason.toString(),
    }));
  });
  ws.send(message(0));
});
ws.on("error", (error) => {
  clearTimeout(timer);
  console.log(JSON.stringify({ ok: false, error: String(error) }));
  process.exit(1);
});
