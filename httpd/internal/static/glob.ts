/**
 * Glob patterns for URL paths, as `.gitignore` writes them: the patterns of
 * `cacheRules` and of the launcher's `--immutable`.
 *
 * @module
 */

/**
 * Compiles a glob into a regular expression over decoded URL paths
 * (starting with `/`).
 *
 * - `*` matches any run of characters except `/`; `?` one character except
 *   `/`; `[abc]`, `[a-z]` and `[!a-z]` one character of a set.
 * - `**` as a whole segment matches any number of segments: `assets/**`
 *   is everything below `assets/`, `**\/*.map` every `.map` file.
 * - `{a,b}` matches either alternative.
 * - A pattern without a `/` (other than a trailing one) matches the last
 *   segment at any depth, so `*.html` is every HTML file; one with a `/` is
 *   anchored at the root (a leading `/` is optional).
 * - A trailing `/` matches everything below the directory.
 * - `\` makes the next character literal.
 *
 * @param glob The pattern.
 * @returns The expression.
 * @throws {SyntaxError} On an empty pattern, an unclosed `[` or `{`, or a
 * trailing `\`.
 */
export function compileGlob(glob: string): RegExp {
  if (typeof glob !== "string" || glob.trim() === "") {
    throw new SyntaxError(`Cannot use pattern ${quote(glob)}: it is empty`);
  }
  let body = glob.startsWith("/") ? glob.slice(1) : glob;
  if (body.endsWith("/")) body += "**";
  const anchored = glob.startsWith("/") || body.includes("/");
  const source = translate(body, glob);
  return new RegExp(`^/${anchored ? "" : "(?:.*/)?"}${source}$`, "u");
}

function translate(body: string, glob: string): string {
  let out = "";
  let braces = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    switch (c) {
      case "\\": {
        const next = body[++i];
        if (next === undefined) {
          throw new SyntaxError(
            `Cannot use pattern ${quote(glob)}: it ends with "\\"`,
          );
        }
        out += escape(next);
        break;
      }
      case "*": {
        const segmentStart = i === 0 || body[i - 1] === "/";
        if (body[i + 1] === "*" && segmentStart) {
          let end = i;
          while (body[end] === "*") end++;
          if (end === body.length) {
            out += ".*";
            i = end - 1;
            break;
          }
          if (body[end] === "/") {
            out += "(?:[^/]*/)*";
            i = end;
            break;
          }
        }
        while (body[i + 1] === "*") i++;
        out += "[^/]*";
        break;
      }
      case "?":
        out += "[^/]";
        break;
      case "[": {
        const close = body.indexOf("]", i + 2);
        if (close === -1) {
          throw new SyntaxError(
            `Cannot use pattern ${quote(glob)}: "[" is not closed`,
          );
        }
        let set = body.slice(i + 1, close);
        const negated = set.startsWith("!") || set.startsWith("^");
        if (negated) set = set.slice(1);
        out += `[${negated ? "^/" : ""}${
          set.replace(/[\\\]\[^]/g, (m) => "\\" + m)
        }]`;
        i = close;
        break;
      }
      case "{":
        braces++;
        out += "(?:";
        break;
      case "}":
        if (braces === 0) {
          out += "\\}";
          break;
        }
        braces--;
        out += ")";
        break;
      case ",":
        out += braces > 0 ? "|" : ",";
        break;
      default:
        out += escape(c);
    }
  }
  if (braces > 0) {
    throw new SyntaxError(
      `Cannot use pattern ${quote(glob)}: "{" is not closed`,
    );
  }
  return out;
}

function escape(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? "\\" + c : c;
}

function quote(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : String(value);
}
