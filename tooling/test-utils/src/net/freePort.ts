import { createServer } from 'node:net';

/**
 * A loopback port that was free a moment ago (nothing listens on it once this resolves): for a server whose
 * address must be known before it listens (an OAuth audience, a resource identifier), or for an address where
 * nothing should answer.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
