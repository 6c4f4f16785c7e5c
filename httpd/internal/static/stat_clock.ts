/**
 * The clock of the static handler's stat cache, and when a cached `stat`
 * may still be trusted.
 *
 * @module
 */

/**
 * The stat cache's clock, in milliseconds: read on every cached lookup, so
 * the cheap one. `Date.now()` is a V8 builtin; `performance.now()` is a
 * runtime call that cost about twice as much (≈200 against ≈100 ns on the
 * benchmark VM, 0.8% of a 304's profile). The wall clock can step back: see
 * {@linkcode isFresh}.
 *
 * @returns Milliseconds since the epoch.
 */
export function cacheNow(): number {
  return Date.now();
}

/**
 * Tells whether something loaded at `loaded` and trusted until `expires`
 * may be used at `now`. A time before `loaded` means the wall clock stepped
 * back: stale, so that a step back never stretches the trust past the TTL.
 *
 * @param loaded When it was loaded ({@linkcode cacheNow}); `-Infinity` for
 * a load still pending.
 * @param expires Until when it is trusted; `Infinity` for a pending load.
 * @param now The time now ({@linkcode cacheNow}).
 * @returns `true` while it may be used.
 */
export function isFresh(loaded: number, expires: number, now: number): boolean {
  return now < expires && now >= loaded;
}
