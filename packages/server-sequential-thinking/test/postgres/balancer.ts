/**
 * A plain round-robin HTTP proxy on 127.0.0.1 without session affinity, the kind of load balancer a team puts in
 * front of replicas (as server-memory's replica tests use; a package never imports another's tests).
 */
import { createServer, request } from 'node:http';
import type { Socket } from 'node:net';

export interface Balancer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/mcp` */
  endpoint: string;
  /** Which target answered each request, in order (indexes into `targets`). */
  served: number[];
}

/** Each request goes to the next of `targets` (endpoints), headers (Host too) passed on. */
export async function startBalancer(targets: string[]): Promise<Balancer> {
  const sockets = new Set<Socket>();
  const served: number[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const index = next++ % targets.length;
    served.push(index);
    const target = new URL(targets[index]!);
    const headers = { ...req.headers, host: target.host };
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}/mcp`,
    served,
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
