/**
 * HTTP Basic authentication (RFC 7617) in front of the site or of the
 * metrics endpoint: 401 with a challenge without good credentials.
 *
 * @module
 */
import { Body, Filter, type Handler, type Request, Response } from "@org/httpd";
import type { Accounts } from "./accounts.ts";

/** The realm the challenge names. */
export const REALM = "httpd-cli";

/** How many good `Authorization` values are remembered, so a bcrypt check
 * runs once per client rather than once per request. */
export const MAX_REMEMBERED_CREDENTIALS = 1_000;

// RFC 7617 section 2.1: the client is told the server expects UTF-8.
const CHALLENGE = `Basic realm="${REALM}", charset="UTF-8"`;
// The request attribute that carries the user who logged in.
const USER = "httpd-cli.auth.user";
const decoder = new TextDecoder();

/** Options of {@linkcode basicAuth}. */
export interface BasicAuthOptions {
  /** Which requests need credentials; default all. */
  when?: (req: Request) => boolean;
}

/** A filter that lets in the accounts' users, and forgets on reload. */
export interface BasicAuth {
  /** The filter. */
  filter: Filter;
  /** Forgets remembered credentials (after the accounts changed). */
  forget(): void;
}

/**
 * Creates the filter. A request with good credentials goes on, with its
 * user available to {@linkcode authenticatedUser}; any other gets 401 with
 * `WWW-Authenticate` (RFC 9110 section 11.6.1).
 *
 * @param accounts Who may log in.
 * @param options Which requests need credentials.
 * @returns The filter, and a way to forget what it remembered.
 */
export function basicAuth(
  accounts: Accounts,
  options: BasicAuthOptions = {},
): BasicAuth {
  const when = options.when;
  // Authorization value → user, for values that passed: the hot path is
  // one map lookup.
  const known = new Map<string, string>();
  // Checks under way, so many requests with the same new value (a client
  // opening connections at once) run one bcrypt, not one each.
  const checking = new Map<string, Promise<string | undefined>>();
  const filter = Filter.of((next: Handler) => (req: Request) => {
    if (when !== undefined && !when(req)) return next(req);
    const header = req.header("authorization");
    if (header === undefined) return challenge();
    const user = known.get(header);
    if (user !== undefined) {
      req.attributes.set(USER, user);
      return next(req);
    }
    let check = checking.get(header);
    if (check === undefined) {
      const credentials = decode(header);
      if (credentials === undefined) return challenge();
      check = accounts.verify(credentials.user, credentials.password).then(
        (ok) => {
          if (!ok) return undefined;
          if (known.size >= MAX_REMEMBERED_CREDENTIALS) known.clear();
          known.set(header, credentials.user);
          return credentials.user;
        },
      ).finally(() => checking.delete(header));
      checking.set(header, check);
    }
    return check.then((user) => {
      if (user === undefined) return challenge();
      req.attributes.set(USER, user);
      return next(req);
    });
  });
  return {
    filter,
    forget: () => {
      known.clear();
      checking.clear();
    },
  };
}

/**
 * The user {@linkcode basicAuth} let in, for the access log.
 *
 * @param req The request.
 * @returns The user name, or `undefined`.
 */
export function authenticatedUser(req: Request): string | undefined {
  return req.attributes.get(USER) as string | undefined;
}

function challenge(): Response {
  return new Response(Body.of("Unauthorized"), {
    status: 401,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "www-authenticate": CHALLENGE,
    },
  });
}

// RFC 7617 section 2: "Basic" (any case), then base64 of user-id ":" password.
function decode(
  header: string,
): { user: string; password: string } | undefined {
  const match = /^basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (match === null) return undefined;
  let binary: string;
  try {
    binary = atob(match[1]!);
  } catch {
    return undefined;
  }
  const text = decoder.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  const colon = text.indexOf(":");
  if (colon <= 0) return undefined;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}
