/**
 * The handler of a prefix-stripping mount: it hands the mounted handler the
 * path below the prefix, and redirects the bare prefix to its slash form.
 *
 * @module
 */
import type { Handler } from "../../handler.ts";
import { mountedRequest, type Request } from "../../request.ts";
import { Response } from "../../response.ts";

/**
 * Wraps a mounted handler so it sees the path below a prefix of `segments`
 * segments. The prefix is cut from the raw path by counting segments, so a
 * parameter in it (`/users/:id/files`) and percent-escapes stay as sent.
 *
 * @param segments How many segments the mount prefix has.
 * @param handler The mounted handler.
 * @returns The handler the router registers.
 */
export function stripPrefix(segments: number, handler: Handler): Handler {
  if (segments === 0) return handler;
  return (req: Request) => {
    const path = req.path;
    let end = 0;
    for (let i = 0; i < segments; i++) {
      end = path.indexOf("/", end + 1);
      if (end === -1) {
        end = path.length;
        break;
      }
    }
    const query = req.query;
    const search = query === "" ? "" : "?" + query;
    const prefix = path.slice(0, end);
    if (end === path.length) {
      // The bare prefix: relative references in what the handler answers
      // resolve against the slash form, so send the client there (nginx and
      // Go's ServeMux do the same). RFC 9110 section 15.4.9: 308 keeps the
      // method and the content.
      const status = req.method === "GET" || req.method === "HEAD" ? 301 : 308;
      return new Response(null, {
        status,
        headers: { location: req.basePath + prefix + "/" + search },
      });
    }
    return handler(
      mountedRequest(req, path.slice(end) + search, req.basePath + prefix),
    );
  };
}
