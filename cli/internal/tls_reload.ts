/**
 * Reloads the certificate and key of `--tls-cert`/`--tls-key` while the
 * server runs: on SIGHUP, and when either file changes (certbot, an ACME
 * client or a secret mount replacing it). A pair that does not load is
 * reported and the old one stays in use.
 *
 * @module
 */
import { dirname } from "node:path";
import type { Server } from "@org/httpd";
import type { TlsFiles } from "../config.ts";

/** How long file events are collected before the files are read: tools
 * write a certificate and its key one after the other. */
export const TLS_SETTLE_MS = 250;

/** Options of {@linkcode watchTls}. */
export interface TlsReloadOptions {
  /** Told about a new pair in use. */
  onReload?: (tls: TlsFiles) => void;
  /** Told why a pair could not be used. */
  onError?: (reason: string) => void;
}

/** A running watch of the certificate files. */
export interface TlsWatch {
  /** Reads the files and swaps the pair when it changed. */
  reload(): Promise<void>;
  /** Stops watching. */
  close(): void;
}

/**
 * Watches the directories of the certificate and key, and swaps the
 * server's pair when their content changes.
 *
 * @param server The HTTPS server.
 * @param files The pair in use and its files.
 * @param options Where to report.
 * @returns The watch.
 */
export function watchTls(
  server: Server,
  files: TlsFiles,
  options: TlsReloadOptions = {},
): TlsWatch {
  let current = files;
  let running: Promise<void> | undefined;
  let again = false;
  const reload = async (): Promise<void> => {
    let cert: string;
    let key: string;
    try {
      [cert, key] = await Promise.all([
        Deno.readTextFile(files.certFile),
        Deno.readTextFile(files.keyFile),
      ]);
    } catch (error) {
      options.onError?.(error instanceof Error ? error.message : String(error));
      return;
    }
    if (cert === current.cert && key === current.key) return;
    try {
      await server.setTls({ cert, key });
    } catch (error) {
      options.onError?.(error instanceof Error ? error.message : String(error));
      return;
    }
    current = { ...files, cert, key };
    options.onReload?.(current);
  };
  // One reload at a time; a request meanwhile runs once more after it.
  const serialized = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = reload().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        void serialized();
      }
    });
    return running;
  };
  const dirs = [...new Set([dirname(files.certFile), dirname(files.keyFile)])];
  let watcher: Deno.FsWatcher | undefined;
  try {
    watcher = Deno.watchFs(dirs, { recursive: false });
  } catch {
    watcher = undefined; // No permission or no inotify: SIGHUP still works.
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watching = (async () => {
    if (!watcher) return;
    try {
      for await (const event of watcher) {
        if (event.kind === "access") continue;
        clearTimeout(timer);
        timer = setTimeout(() => void serialized(), TLS_SETTLE_MS);
      }
    } catch {
      // Closed.
    }
  })();
  return {
    reload: serialized,
    close: () => {
      clearTimeout(timer);
      try {
        watcher?.close();
      } catch {
        // Already closed.
      }
      void watching;
    },
  };
}
