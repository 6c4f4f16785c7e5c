// hono_ws.ts: Hono's `upgradeWebSocket` for apps served by @org/httpd
// (`serve(app.fetch)`, or `fetchHandler(app.fetch)` in a Router). It is
// `hono/deno`'s adapter with @org/httpd's `upgradeWebSocket` in place of
// `Deno.upgradeWebSocket`, which cannot upgrade this server's connections.
import {
  upgradeWebSocket as upgrade,
  type UpgradeWebSocketOptions,
  type WebSocket,
} from "@org/httpd";
import { defineWebSocketHelper, WSContext, type WSReadyState } from "hono/ws";

export const upgradeWebSocket = defineWebSocketHelper<
  WebSocket,
  UpgradeWebSocketOptions
>((c, events, options) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") return;
  // As hono/deno: speak the client's first subprotocol unless told otherwise.
  const protocol = c.req.header("sec-websocket-protocol")?.split(",")[0]
    ?.trim();
  const { socket, response } = upgrade(c.req.raw, {
    ...(protocol ? { protocol } : {}),
    ...options,
  });
  const ws = new WSContext<WebSocket>({
    send: (data) => socket.send(data),
    close: (code, reason) => socket.close(code, reason),
    raw: socket,
    get readyState() {
      return socket.readyState as WSReadyState;
    },
    url: socket.url,
    protocol: socket.protocol,
  });
  socket.onopen = (event) => events.onOpen?.(event, ws);
  socket.onmessage = (event) => events.onMessage?.(event, ws);
  socket.onclose = (event) => events.onClose?.(event, ws);
  socket.onerror = (event) => events.onError?.(event, ws);
  return response;
});
