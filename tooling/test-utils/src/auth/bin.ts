/**
 * A built server bin over Streamable HTTP for the auth tests of the server packages: spawned with
 * `--transport http --port 0` on loopback, its endpoint read from the "listening on" line it prints on stderr,
 * stopped with SIGTERM. Also the clients those tests use against a protected bin (the v2 client in either era,
 * the v1 client, raw HTTP where a client would hide the status).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { StreamableHTTPClientTransport, Client as V2Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface HttpBin extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `<url>/mcp`. */
  endpoint: string;
  stderr(): string;
  close(): Promise<void>;
}

export interface HttpBinOptions {
  args?: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
  /** How long to wait for the "listening on" line. Default 20 s. */
  timeoutMs?: number;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts `node <bin> --transport http --host 127.0.0.1 --port 0 …args` and waits until it listens. */
export async function spawnHttpBin(bin: string, { args = [], env = {}, cwd, timeoutMs = 20_000 }: HttpBinOptions = {}): Promise<HttpBin> {
  const child = spawn(process.execPath, [bin, '--transport', 'http', '--host', '127.0.0.1', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(cwd ? { cwd } : {}),
  });
  let stderr = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line within ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bin exited (${code}) before listening; stderr:\n${stderr}`));
    });
  }).catch(async (error: unknown) => {
    await stop(child);
    throw error;
  });
  const close = () => stop(child);
  return { url: endpoint.replace(/\/mcp$/, ''), endpoint, stderr: () => stderr, close, [Symbol.asyncDispose]: close };
}

export type ClientKind = 'v2 legacy' | 'v2 2026-07-28' | 'v1';
export const CLIENT_KINDS: readonly ClientKind[] = ['v2 legacy', 'v2 2026-07-28', 'v1'];

/** The calls the auth tests make, whichever client makes them. */
export interface AnyClient extends AsyncDisposable {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: {
    name: string;
    arguments: Record<string, unknown>;
  }): Promise<{ content?: unknown; structuredContent?: unknown; isError?: boolean }>;
}

/** A client of `kind` connected to `endpoint` with `Authorization: Bearer <token>`. */
export async function connectWithToken(kind: ClientKind, endpoint: string, token: string): Promise<AnyClient> {
  const headers = { Authorization: `Bearer ${token}` };
  if (kind === 'v1') {
    const client = new V1Client({ name: 'auth-v1', version: '0.0.0' });
    await client.connect(new V1Transport(new URL(endpoint), { requestInit: { headers } }));
    return {
      listTools: () => client.listTools(),
      callTool: (params) => client.callTool(params) as ReturnType<AnyClient['callTool']>,
      [Symbol.asyncDispose]: () => client.close(),
    };
  }
  const client = new V2Client(
    { name: 'auth-v2', version: '0.0.0' },
    { versionNegotiation: { mode: kind === 'v2 legacy' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } }));
  const era = client.getProtocolEra();
  if (era !== (kind === 'v2 legacy' ? 'legacy' : 'modern')) throw new Error(`${kind} landed on the ${era} era`);
  return {
    listTools: () => client.listTools(),
    callTool: (params) => client.callTool(params) as ReturnType<AnyClient['callTool']>,
    [Symbol.asyncDispose]: () => client.close(),
  };
}

/** The text of a tool result's first content block. */
export function resultText(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === 'text' ? (first.text ?? '') : '';
}

/** A raw JSON-RPC POST to an MCP endpoint, past any client: for the HTTP statuses and headers themselves. */
export function postJson(endpoint: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

/** A `tools/list` POST without a token, as a client's first try: the response (401 expected) for the caller to check. */
export function postWithoutToken(endpoint: string): Promise<Response> {
  return postJson(endpoint, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
}
