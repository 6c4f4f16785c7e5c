/**
 * HTTP-date parsing and formatting (RFC 9110 section 5.6.7).
 *
 * @module
 */

const MONTHS: Readonly<Record<string, number>> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};
// deno-fmt-ignore
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
// deno-fmt-ignore
const RFC850_DATE = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
// deno-fmt-ignore
const ASCTIME_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

// Clients revalidate with the same date again and again; one remembered
// answer spares the regular expressions on the hot path.
let lastText = "";
let lastValue = NaN;

/**
 * Parses an HTTP-date in any of the three forms a recipient must accept
 * (RFC 9110 section 5.6.7): IMF-fixdate, obsolete RFC 850 and asctime.
 *
 * @param text The field value.
 * @returns Whole seconds since the epoch, or `NaN` when invalid.
 */
export function parseHttpDate(text: string): number {
  if (text === lastText) return lastValue;
  const value = parse(text.trim());
  lastText = text;
  lastValue = value;
  return value;
}

function parse(text: string): number {
  let m = IMF_FIXDATE.exec(text);
  if (m) return build(+m[3]!, m[2]!, +m[1]!, m[4]!, m[5]!, m[6]!);
  m = RFC850_DATE.exec(text);
  if (m) {
    // RFC 9110 section 5.6.7: a two-digit year more than 50 years in the
    // future means the most recent past year with those digits.
    const now = new Date().getUTCFullYear();
    let year = Math.floor(now / 100) * 100 + +m[3]!;
    if (year > now + 50) year -= 100;
    return build(year, m[2]!, +m[1]!, m[4]!, m[5]!, m[6]!);
  }
  m = ASCTIME_DATE.exec(text);
  if (m) return build(+m[6]!, m[1]!, +m[2]!.trim(), m[3]!, m[4]!, m[5]!);
  return NaN;
}

function build(
  year: number,
  month: string,
  day: number,
  h: string,
  m: string,
  s: string,
): number {
  const mon = MONTHS[month];
  if (mon === undefined || !Object.hasOwn(MONTHS, month)) return NaN;
  const hours = +h, minutes = +m, seconds = +s;
  if (day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60) {
    return NaN;
  }
  return Date.UTC(year, mon, day, hours, minutes, seconds) / 1000;
}

/**
 * Formats whole seconds since the epoch as an IMF-fixdate, such as
 * `Sun, 06 Nov 1994 08:49:37 GMT`.
 *
 * @param seconds Seconds since the epoch.
 * @returns The HTTP-date.
 */
export function formatHttpDate(seconds: number): string {
  return new Date(seconds * 1000).toUTCString();
}
