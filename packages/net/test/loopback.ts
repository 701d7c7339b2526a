/** A real HTTP server on 127.0.0.1 for the unit tests (no mocks), closed with `await using`. */
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Loopback extends AsyncDisposable {
  origin: string;
  port: number;
  /** Every request seen: method, path and headers. */
  seen: { method: string; url: string; headers: IncomingMessage['headers'] }[];
}

export async function loopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const seen: Loopback['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** GETs `url` with node:http (no undici): the raw response stream and its headers. */
export function rawGet(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, resolve).on('error', reject));
}
