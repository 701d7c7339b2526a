/**
 * A TCP relay on 127.0.0.1 in front of the test database, to take it "down" and bring it back on the
 * same port, or to make it hang: `stall()` keeps accepting connections but forwards nothing either way.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Relay extends AsyncDisposable {
  port: number;
  /** Stops listening and cuts every relayed connection. */
  down(): Promise<void>;
  /** Listens again on the same port (after `down`), or relays again (after `refuse`). */
  up(): Promise<void>;
  /** A database that refuses: every relayed connection is cut, and each new one is closed at once and counted. */
  refuse(): void;
  /** How many connections `refuse` has closed. */
  readonly refused: number;
  /** A database that hangs: connections are accepted (new and open ones alike) and nothing more is forwarded. */
  stall(): void;
  /** Ends a stall: the stalled connections are cut, new ones are relayed again. */
  flow(): void;
}

export async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let server: Server | undefined;
  let port = 0;
  let stalled = false;
  let refusing = false;
  let refused = 0;
  const track = (sock: Socket) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  };
  const up = () =>
    new Promise<void>((resolve, reject) => {
      refusing = false;
      if (server) return resolve();
      const s = createServer((inbound) => {
        if (refusing) {
          refused++;
          inbound.destroy();
          return;
        }
        track(inbound);
        if (stalled) {
          inbound.on('error', () => inbound.destroy());
          return; // accepted, never answered
        }
        const outbound = connect(target.port, target.host);
        track(outbound);
        const pair: [Socket, Socket] = [inbound, outbound];
        pairs.add(pair);
        for (const sock of pair) {
          sock.on('close', () => pairs.delete(pair));
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
    get refused() {
      return refused;
    },
    refuse() {
      refusing = true;
      for (const sock of sockets) sock.destroy();
    },
    down,
    up,
    stall() {
      stalled = true;
      for (const [inbound, outbound] of pairs) {
        inbound.unpipe(outbound);
        outbound.unpipe(inbound);
        inbound.pause();
        outbound.pause();
      }
    },
    flow() {
      stalled = false;
      for (const sock of sockets) sock.destroy();
    },
    [Symbol.asyncDispose]: down,
  };
}
