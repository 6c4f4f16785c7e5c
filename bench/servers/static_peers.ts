/**
 * The configurations `bench/static.ts` starts its peers with: nginx as it
 * is tuned for static files (one worker, `sendfile`, `open_file_cache`) and
 * Caddy's `file_server`, each on a cleartext HTTP/1.1 port and a TLS port
 * that offers HTTP/2 by ALPN.
 *
 * @module
 */

/** Where a peer listens and what it serves. */
export interface PeerSite {
  /** The directory served. */
  root: string;
  /** A scratch directory for the peer's own files (pid, logs, temp). */
  scratch: string;
  /** The cleartext HTTP/1.1 port. */
  httpPort: number;
  /** The TLS port (HTTP/2 by ALPN). */
  tlsPort: number;
  /** The PEM certificate chain. */
  certFile: string;
  /** The PEM private key. */
  keyFile: string;
}

/**
 * nginx as a static-file server is usually run: one worker (the other core
 * is the load generator's), `sendfile` (the kernel copies file to socket),
 * `open_file_cache` (no `open`/`fstat` per request), no access log.
 *
 * @param site Ports, directories and the certificate.
 * @returns The `nginx.conf` text.
 */
export function nginxStaticConfig(site: PeerSite): string {
  const { root, scratch } = site;
  return `worker_processes 1;
daemon off;
pid ${scratch}/nginx.pid;
error_log ${scratch}/nginx_error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  # The load generators send far more than the default 1000 per connection.
  keepalive_requests 100000000;
  open_file_cache max=1000 inactive=60s;
  open_file_cache_valid 60s;
  client_body_temp_path ${scratch}/body;
  proxy_temp_path ${scratch}/proxy;
  fastcgi_temp_path ${scratch}/fastcgi;
  uwsgi_temp_path ${scratch}/uwsgi;
  scgi_temp_path ${scratch}/scgi;
  types { text/plain txt; application/octet-stream bin; }
  server {
    listen 127.0.0.1:${site.httpPort};
    root ${root};
  }
  server {
    listen 127.0.0.1:${site.tlsPort} ssl http2;
    ssl_certificate ${site.certFile};
    ssl_certificate_key ${site.keyFile};
    root ${root};
  }
}
`;
}

/**
 * Caddy's `file_server` with its defaults (no access log unless asked),
 * the admin endpoint and automatic HTTPS off, the same certificate as the
 * others on the TLS port.
 *
 * @param site Ports, directories and the certificate.
 * @returns The `Caddyfile` text.
 */
export function caddyStaticConfig(site: PeerSite): string {
  return `{
	admin off
	auto_https off
	default_sni localhost
}
http://127.0.0.1:${site.httpPort} {
	root * ${site.root}
	file_server
}
https://127.0.0.1:${site.tlsPort} {
	tls ${site.certFile} ${site.keyFile}
	root * ${site.root}
	file_server
}
`;
}
