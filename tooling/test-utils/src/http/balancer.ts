/**
 * A plain round-robin HTTP proxy on 127.0.0.1 without session affinity, the kind of load balancer a team puts in
 * front of replicas: each request goes to the next target, the next request to the one after.
 */
import { createServer, request } from 'node:http';
import type { Socket } from 'node:net';

export interface Balancer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/mcp` */
  endpoint: string;
  port: number;
  /** The replicas' endpoints, taken in turn, one request each (may be filled once the balancer's port is known). */
  targets: string[];
  /** Which target answered each request, in order (indexes into `targets`). */
  served: number[];
}

export interface BalancerOptions {
  /**
   * The `Host` header the replicas see: `target` (default) rewrites it to the target's own host, as a proxy that
   * sets `Host` per upstream does; `forward` passes the client's on (the balancer's address), so the replicas must
   * allow it (`--allowed-host 127.0.0.1:<balancer.port>`).
   */
  host?: 'target' | 'forward';
}

/** Starts the proxy in front of `targets` (endpoints; more may be pushed onto `balancer.targets` later). */
export async function startBalancer(targets: readonly string[] = [], { host = 'target' }: BalancerOptions = {}): Promise<Balancer> {
  const sockets = new Set<Socket>();
  const balancer = { targets: [...targets], served: [] as number[] };
  let next = 0;
  const server = createServer((req, res) => {
    const index = next++ % balancer.targets.length;
    balancer.served.push(index);
    const target = new URL(balancer.targets[index]!);
    const headers = host === 'target' ? { ...req.headers, host: target.host } : req.headers;
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
  return Object.assign(balancer, {
    endpoint: `http://127.0.0.1:${port}/mcp`,
    port,
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
