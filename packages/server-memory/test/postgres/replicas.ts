/**
 * Replicas for the multi-process tests: the built bin over Streamable HTTP on 127.0.0.1 (a free
 * port, read from its "listening on" line), and a plain round-robin HTTP proxy without session
 * affinity, the kind of load balancer a team puts in front of them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface Replica extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/mcp` */
  endpoint: string;
  process: ChildProcess;
  stderr(): string;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
}

/** Starts `node <bin> --transport http --port 0 …args` with `env` and waits until it listens. */
export async function startReplica(bin: string, args: string[], env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, [bin, '--transport', 'http', '--host', '127.0.0.1', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica did not start: ${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica exited with ${code}: ${stderr}`));
    });
  });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return { endpoint, process: child, stderr: () => stderr, kill, [Symbol.asyncDispose]: kill };
}

export interface Balancer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/mcp` */
  endpoint: string;
  port: number;
  /** The replicas' endpoints, taken in turn, one request each. */
  targets: string[];
}

/** A round-robin reverse proxy on 127.0.0.1: each request goes to the next target, headers (Host too) passed on. */
export async function startBalancer(): Promise<Balancer> {
  const sockets = new Set<Socket>();
  let next = 0;
  const balancer = { targets: [] as string[] };
  const server = createServer((req, res) => {
    const target = new URL(balancer.targets[next++ % balancer.targets.length]!);
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
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

/** An SDK client over Streamable HTTP. */
export async function httpClient(endpoint: string): Promise<Client> {
  const client = new Client({ name: 'replica-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  return client;
}
