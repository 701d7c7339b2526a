/** A TCP relay on 127.0.0.1 in front of the test database, to take it "down" and bring it back on the same port. */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Relay extends AsyncDisposable {
  port: number;
  /** Stops listening and cuts every relayed connection. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
}

export async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((inbound) => {
        const outbound = connect(target.port, target.host);
        for (const sock of [inbound, outbound]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => {
            inbound.destroy();
            outbound.destroy();
          });
        }
        inbound.pipe(outbound).pipe(inbound);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const sock of sockets) sock.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  await up();
  return {
    get port() {
      return port;
    },
    down,
    up,
    [Symbol.asyncDispose]: down,
  };
}
