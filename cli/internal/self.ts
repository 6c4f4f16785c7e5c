/**
 * Which module started the process, when it is this package's entry.
 *
 * @module
 */

/**
 * Returns the main module's URL when it is this package's `main.ts` or
 * `mod.ts` (so running it again with the same arguments runs the launcher),
 * else `undefined` (the launcher is embedded in another program).
 */
export function relaunchableModule(): string | undefined {
  const candidates = [
    new URL("../main.ts", import.meta.url).href,
    new URL("../mod.ts", import.meta.url).href,
  ];
  return candidates.includes(Deno.mainModule) ? Deno.mainModule : undefined;
}
