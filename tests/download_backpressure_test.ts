/**
 * A file download follows its reader: a client that stops reading stops the
 * file reads after one chunk, so memory per concurrent download is bounded
 * by one chunk however large the file, over HTTP/1.1 and HTTP/2.
 */
import assert from "node:assert/strict";
import { Body, DEFAULT_LIMITS, FILE_CHUNK_SIZE, Response } from "@org/httpd";
import type {
  Conn,
  ConnectionInfo,
  ServerContext,
} from "../httpd/internal/conn/types.ts";
import { fileChunkBuffers } from "../httpd/internal/file_range.ts";
import { serveH1 } from "../httpd/internal/h1/driver.ts";
import {
  block,
  F,
  H2Client,
  headers,
  requestFields,
  T,
  windowUpdate,
} from "./support/h2_frames.ts";
import { startServer } from "./support/server.ts";

/** How long a stalled download gets to read on, were it not held back:
 * page-cached reads of a whole file take a few milliseconds. */
const SETTLE_MS = 300;

interface SpiedFile {
  file: Deno.FsFile;
  /** Bytes read from the file so far. */
  read: number;
  closed: boolean;
}

/** Opens a sparse file of `size` bytes whose reads and close are counted. */
async function spiedFile(size: number): Promise<SpiedFile & Disposable> {
  const path = await Deno.makeTempFile({ prefix: "download_" });
  await Deno.truncate(path, size);
  const file = await Deno.open(path);
  await Deno.remove(path);
  const spied = {
    file,
    read: 0,
    closed: false,
    [Symbol.dispose]() {
      if (!spied.closed) file.close();
    },
  };
  const read = file.read.bind(file);
  file.read = async (p) => {
    const n = await read(p);
    if (n !== null) spied.read += n;
    return n;
  };
  const close = file.close.bind(file);
  file.close = () => {
    spied.closed = true;
    close();
  };
  return spied;
}

/**
 * A socket whose peer sends one request, then takes `budget` bytes and no
 * more until `open()`: what a client that stops reading looks like once the
 * kernel's buffers are full.
 */
class StalledPeer {
  taken = 0;
  #budget: number;
  #request: Uint8Array | undefined;
  #readers: ((n: 0) => void)[] = [];
  #writers: { resolve: () => void; reject: (e: Error) => void }[] = [];
  #closed = false;

  constructor(request: string, budget: number) {
    this.#request = new TextEncoder().encode(request);
    this.#budget = budget;
  }

  /** Whether a write waits for the peer. */
  get stalled(): boolean {
    return this.#writers.length > 0;
  }

  /** Reads as the server's sockets do: 0 at the end. */
  read(p: Uint8Array): Promise<number> {
    const request = this.#request;
    if (request !== undefined) {
      this.#request = undefined;
      p.set(request);
      return Promise.resolve(request.byteLength);
    }
    if (this.#closed) return Promise.resolve(0);
    return new Promise((resolve) => this.#readers.push(resolve));
  }

  async write(p: Uint8Array): Promise<number> {
    while (this.taken >= this.#budget) {
      if (this.#closed) throw new Deno.errors.BadResource("Closed");
      await new Promise<void>((resolve, reject) =>
        this.#writers.push({ resolve, reject })
      );
    }
    const n = Math.min(p.byteLength, this.#budget - this.taken);
    this.taken += n;
    return n;
  }

  /** The peer reads everything from now on. */
  open(): void {
    this.#budget = Infinity;
    for (const w of this.#writers.splice(0)) w.resolve();
  }

  /** The peer hangs up. */
  close(): void {
    this.#closed = true;
    for (const r of this.#readers.splice(0)) r(0);
    for (const w of this.#writers.splice(0)) {
      w.reject(new Deno.errors.BadResource("Closed"));
    }
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(condition(), `Timed out waiting until ${what}`);
}

/** The connection facts of the fake peers. */
const PEER_INFO: ConnectionInfo = {
  remoteAddress: "127.0.0.1",
  secure: false,
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 50000 },
  defaultAuthority: "localhost:8080",
};

Deno.test("HTTP/1.1: 16 stalled downloads read one chunk each, then finish when read", async () => {
  const size = 4 * FILE_CHUNK_SIZE + 12_345;
  const downloads = 16;
  const files: (SpiedFile & Disposable)[] = [];
  for (let i = 0; i < downloads; i++) files.push(await spiedFile(size));
  let next = 0;
  const server: ServerContext = {
    handler: () => {
      const { file } = files[next++]!;
      return new Response(Body.file(file, { length: size }));
    },
    limits: DEFAULT_LIMITS,
    serverHeader: "test",
    requestContext: false,
    onError: (error) => {
      throw error;
    },
  };
  const info = PEER_INFO;
  const peers: StalledPeer[] = [];
  const served = [];
  for (let i = 0; i < downloads; i++) {
    const peer = new StalledPeer(
      "GET /big HTTP/1.1\r\nhost: x\r\n\r\n",
      64 * 1024,
    );
    peers.push(peer);
    served.push(
      serveH1(peer as unknown as Conn, new Uint8Array(0), server, info),
    );
  }
  try {
    await until(() => peers.every((p) => p.stalled), "every download stalls");
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    for (const f of files) assert.equal(f.read, FILE_CHUNK_SIZE);
    const held = fileChunkBuffers.free;

    for (const peer of peers) peer.open();
    await until(() => files.every((f) => f.closed), "every file is sent");
    for (const [i, peer] of peers.entries()) {
      assert.equal(files[i]!.read, size);
      // The head, then exactly the file's bytes.
      assert.ok(peer.taken > size && peer.taken < size + 512, `${peer.taken}`);
    }
    // Each download gave its chunk buffer back (the pool keeps a few).
    assert.ok(fileChunkBuffers.free > held);
  } finally {
    for (const peer of peers) peer.close();
    await Promise.all(served.map((s) => s.closed));
    for (const f of files) f[Symbol.dispose]();
  }
});

Deno.test("HTTP/1.1: a peer that hangs up mid-download closes the file", async () => {
  using spied = await spiedFile(8 * FILE_CHUNK_SIZE);
  const server: ServerContext = {
    handler: () =>
      new Response(Body.file(spied.file, { length: 8 * FILE_CHUNK_SIZE })),
    limits: DEFAULT_LIMITS,
    serverHeader: "test",
    requestContext: false,
    onError: () => {},
  };
  const peer = new StalledPeer("GET / HTTP/1.1\r\nhost: x\r\n\r\n", 100_000);
  const served = serveH1(
    peer as unknown as Conn,
    new Uint8Array(0),
    server,
    PEER_INFO,
  );
  await until(() => peer.stalled, "the download stalls");
  const free = fileChunkBuffers.free;
  peer.close();
  await served.closed;
  await until(() => spied.closed, "the file is closed");
  assert.equal(spied.read, FILE_CHUNK_SIZE);
  assert.equal(fileChunkBuffers.free, free + 1);
});

Deno.test("HTTP/2: a stream whose window stays shut reads one chunk, then finishes as the window opens", async () => {
  const size = 3 * FILE_CHUNK_SIZE;
  using spied = await spiedFile(size);
  await using server = await startServer(() =>
    new Response(Body.file(spied.file, { length: size }))
  );
  // Default windows (65,535 bytes) and no WINDOW_UPDATE: a client that
  // does not read.
  const client = await H2Client.connect(server.port, { openWindow: false });
  try {
    await client.send(
      headers(1, block(requestFields("/big")), F.END_HEADERS | F.END_STREAM),
    );
    let received = 0;
    while (received < 65_535) {
      const f = await client.expect((f) => f.type === T.DATA);
      received += f.payload.byteLength;
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    assert.equal(spied.read, FILE_CHUNK_SIZE);

    await client.send(windowUpdate(0, size), windowUpdate(1, size));
    let ended = false;
    while (!ended) {
      const f = await client.expect((f) => f.type === T.DATA);
      received += f.payload.byteLength;
      ended = (f.flags & F.END_STREAM) !== 0;
    }
    assert.equal(received, size);
    assert.equal(spied.read, size);
    await until(() => spied.closed, "the file is closed");
  } finally {
    client.close();
  }
});
