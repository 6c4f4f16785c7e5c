/**
 * The URLs to print when the server listens: the bound address itself, or
 * for a wildcard address the loopback and LAN addresses that reach it.
 *
 * @module
 */

/** Options of {@linkcode listeningUrls}. */
export interface ListeningUrlsOptions {
  /** Whether the server speaks HTTPS. */
  secure: boolean;
  /** The machine's interfaces; default `Deno.networkInterfaces()` (none without permission). */
  interfaces?: Deno.NetworkInterfaceInfo[];
}

/**
 * Returns one URL per reachable address, loopback first. `0.0.0.0` lists
 * the IPv4 addresses, `::` the IPv4 and IPv6 ones (Linux binds `::`
 * dual-stack); link-local IPv6 addresses are left out because a URL cannot
 * carry their zone.
 */
export function listeningUrls(
  bind: string,
  port: number,
  options: ListeningUrlsOptions,
): string[] {
  const scheme = options.secure ? "https" : "http";
  const url = (host: string) =>
    `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}/`;
  if (bind !== "0.0.0.0" && bind !== "::") return [url(bind)];
  const interfaces = options.interfaces ?? readInterfaces();
  const wanted = bind === "::" ? ["IPv4", "IPv6"] : ["IPv4"];
  const hosts = [bind === "::" ? "::1" : "127.0.0.1"];
  if (bind === "::") hosts.push("127.0.0.1");
  for (const info of interfaces) {
    if (!wanted.includes(info.family) || info.address.startsWith("fe80:")) {
      continue;
    }
    if (!hosts.includes(info.address)) hosts.push(info.address);
  }
  return hosts.map(url);
}

function readInterfaces(): Deno.NetworkInterfaceInfo[] {
  try {
    return Deno.networkInterfaces();
  } catch {
    return []; // No sys permission: print the loopback address only.
  }
}
