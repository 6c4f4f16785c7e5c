/**
 * The `Date` field value (RFC 9110 section 6.6.1, IMF-fixdate), formatted at
 * most once per second instead of once per response.
 *
 * @module
 */

let cached = "";
let cachedSecond = -1;

/**
 * Returns the current time as an IMF-fixdate, such as
 * `Sun, 06 Nov 1994 08:49:37 GMT`.
 *
 * @param now The time in milliseconds since the epoch, when the caller
 * read the clock already (`Date.now()` costs 60-80 ns on some VMs).
 * @returns The `Date` field value.
 */
export function httpDate(now: number = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cached = new Date(second * 1000).toUTCString();
  }
  return cached;
}
