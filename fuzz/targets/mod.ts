/**
 * Every fuzz target, in the order a campaign runs them.
 *
 * @module
 */
import type { Target } from "../harness.ts";
import { cookies, signedCookies } from "./cookies.ts";
import { htpasswd, yamlConfig } from "./cli.ts";
import { accept, conditional, range, routePath } from "./fields.ts";
import { h1Chunked, h1Head } from "./h1.ts";
import { h2Conn, h2Frame } from "./h2.ts";
import { hpack } from "./hpack.ts";
import { exposition, metricsConfig } from "./metrics.ts";
import { multipart } from "./multipart.ts";
import { wsInflate, wsReceiver, wsUtf8 } from "./ws.ts";

/** The targets (the differential `h1-h11` runs beside them). */
export const TARGETS: readonly Target<never>[] = [
  h1Head,
  h1Chunked,
  h2Frame,
  h2Conn,
  hpack,
  wsReceiver,
  wsUtf8,
  wsInflate,
  multipart,
  cookies,
  signedCookies,
  range,
  conditional,
  accept,
  routePath,
  yamlConfig,
  htpasswd,
  metricsConfig,
  exposition,
] as unknown as readonly Target<never>[];
