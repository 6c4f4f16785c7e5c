/**
 * A parser for Java `.properties` text, the format of
 * `microprofile-config.properties` (Java SE `java.util.Properties.load`):
 * `#` and `!` comments, `=`, `:` or white space between key and value,
 * backslash line continuation, and the escapes `\t \n \r \f \uXXXX`; any
 * other escaped character stands for itself, so a value `a\\=b` loads as
 * `a\=b`.
 *
 * @module
 */

function unescape(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch !== "\\" || i + 1 >= text.length) {
      out += ch;
      continue;
    }
    const next = text[++i];
    switch (next) {
      case "t":
        out += "\t";
        break;
      case "n":
        out += "\n";
        break;
      case "r":
        out += "\r";
        break;
      case "f":
        out += "\f";
        break;
      case "u": {
        const hex = text.slice(i + 1, i + 5);
        if (/^[0-9a-fA-F]{4}$/.test(hex)) {
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
        } else out += "u";
        break;
      }
      default:
        out += next;
    }
  }
  return out;
}

/** Joins continued lines: a line ending in an odd number of `\` goes on. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending: string | null = null;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line: string = pending === null
      ? raw
      : pending + raw.replace(/^[ \t\f]+/, "");
    if (pending === null && /^[ \t\f]*[#!]/.test(line)) continue;
    const trailing = /\\*$/.exec(line)![0].length;
    if (trailing % 2 === 1) {
      pending = line.slice(0, -1);
      continue;
    }
    pending = null;
    lines.push(line);
  }
  if (pending !== null) lines.push(pending);
  return lines;
}

/** Parses properties text into a map (the last occurrence of a key wins). */
export function parseProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const full of logicalLines(text)) {
    const line = full.replace(/^[ \t\f]+/, "");
    if (line === "") continue;
    let i = 0;
    while (i < line.length) {
      const ch = line[i];
      if (ch === "\\") {
        i += 2;
        continue;
      }
      if (
        ch === "=" || ch === ":" || ch === " " || ch === "\t" || ch === "\f"
      ) {
        break;
      }
      i++;
    }
    const key = unescape(line.slice(0, i));
    let rest = line.slice(i).replace(/^[ \t\f]+/, "");
    if (rest.startsWith("=") || rest.startsWith(":")) {
      rest = rest.slice(1).replace(/^[ \t\f]+/, "");
    }
    result.set(key, unescape(rest));
  }
  return result;
}
