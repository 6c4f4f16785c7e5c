/**
 * The plain-HTTP listener of `--redirect-http PORT`: every request gets a
 * 308 to the same path on the HTTPS port, except ACME HTTP-01 challenges
 * (`/.well-known/acme-challenge/`), which are served from the root so
 * `certbot --webroot` can renew the certificate.
 *
 * @module
 */
import {
  type Handler,
  type Request,
  Response,
  Server,
  staticFiles,
} from "@org/httpd";
import type { ServeConfig } from "../config.ts";
import { ListenError } from "../errors.ts";

/** Where ACME HTTP-01 challenges are fetched (RFC 8555 section 8.3). */
export const ACME_CHALLENGE_PREFIX = "/.well-known/acme-challenge/";

/** The port browsers use for `https:` without one. */
const HTTPS_DEFAULT_PORT = 443;

// RFC 9110 section 7.2 / RFC 3986 section 3.2.2: a host name, an IPv4
// address or a bracketed IPv6 address, then an optional port.
const HOST = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The redirecting handler.
 *
 * @param httpsPort The HTTPS port.
 * @param root The site's root, for ACME challenges.
 * @returns The handler.
 */
export function redirectHandler(httpsPort: number, root: string): Handler {
  const challenges = staticFiles({
    roots: [root],
    notFoundFile: false,
    indexFiles: [],
  });
  const port = httpsPort === HTTPS_DEFAULT_PORT ? "" : `:${httpsPort}`;
  return (req: Request) => {
    if (req.path.startsWith(ACME_CHALLENGE_PREFIX)) return challenges(req);
    const host = HOST.exec(req.header("host") ?? "");
    if (host === null) {
      return Response.text("Bad Request: a Host field is needed to redirect", {
        status: 400,
      });
    }
    // Origin form as sent; absolute form rebuilt; `*` (OPTIONS) is the root.
    const target = req.target.startsWith("/")
      ? req.target
      : req.path.startsWith("/")
      ? req.path + (req.query === "" ? "" : `?${req.query}`)
      : "/";
    return new Response(null, {
      status: 308,
      headers: { location: `https://${host[1]}${port}${target}` },
    });
  };
}

/**
 * Starts the redirecting server on `config.redirectHttp`.
 *
 * @param config The configuration (`redirectHttp` set).
 * @param httpsPort The port the HTTPS server listens on.
 * @returns The started server.
 * @throws {ListenError} When the port cannot be bound.
 */
export async function startRedirectServer(
  config: ServeConfig,
  httpsPort: number,
): Promise<Server> {
  const port = config.redirectHttp!;
  const server = new Server({
    handler: redirectHandler(httpsPort, config.root),
    port,
    bindAddress: config.bind,
    limits: { gracefulStopMs: config.drainTimeoutMs },
  });
  try {
    await server.start();
  } catch (error) {
    throw ListenError.from(error, {
      hostname: config.bind,
      port,
      setting: "--redirect-http",
    });
  }
  return server;
}
