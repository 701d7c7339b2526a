/**
 * Replicas for the multi-process tests: the built bin over Streamable HTTP on 127.0.0.1 (a free
 * port, read from its "listening on" line), and the shared round-robin HTTP proxy in front of them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type Balancer, startBalancer as startSharedBalancer } from '@mcpkit/test-utils/balancer';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type { Balancer };

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

/**
 * The shared round-robin proxy (`@mcpkit/test-utils/balancer`) with the client's `Host` passed on: the replicas
 * are started with `--allowed-host 127.0.0.1:<balancer.port>` and fill `balancer.targets` once they listen.
 */
export const startBalancer = (): Promise<Balancer> => startSharedBalancer([], { host: 'forward' });

/** An SDK client over Streamable HTTP. */
export async function httpClient(endpoint: string): Promise<Client> {
  const client = new Client({ name: 'replica-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  return client;
}
