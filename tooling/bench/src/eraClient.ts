/**
 * A connected client of either protocol era, over stdio (a spawned server) or Streamable HTTP (an
 * endpoint), behind one small interface so a suite times both eras the same way:
 *
 * - `2025-11-25`: the v1 SDK client (`@modelcontextprotocol/sdk`), `initialize` and a session;
 *   what harness.ts `connectStdio` and httpServer.ts `connectHttp` already give.
 * - `2026-07-28`: the v2 client (`@modelcontextprotocol/client`) pinned to 2026-07-28
 *   (`versionNegotiation: { mode: { pin } }`): `server/discover`, then stateless requests with
 *   the per-request `_meta` envelope; connecting fails if the server does not offer that revision.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { childEnv, connectStdio, type Era, type SpawnSpec, withTimeout } from './harness.js';
import { connectHttp } from './httpServer.js';

export type Target = { stdio: SpawnSpec } | { http: string };

/** What a tool call returns, in the shape both SDKs share. */
interface ToolResult {
  content?: unknown;
  isError?: boolean;
}

export interface EraClient extends AsyncDisposable {
  era: Era;
  /** The server's pid when the client spawned it (stdio). */
  pid: number | undefined;
  listTools(): Promise<string[]>;
  /** `tools/call`; `timeoutMs` is the SDK request timeout (default 60 s). */
  callTool(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<ToolResult>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'mcpkit-bench', version: '0.0.0' };
const CONNECT_TIMEOUT_MS = 15_000;

function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= close();
    return closing;
  };
}

async function connect2025(target: Target, label: string): Promise<EraClient> {
  if ('stdio' in target) {
    const conn = await connectStdio(target.stdio, { timeoutMs: CONNECT_TIMEOUT_MS });
    const close = once(() => conn.close());
    return {
      era: '2025-11-25',
      pid: conn.pid,
      listTools: async () => (await conn.client.listTools()).tools.map((t) => t.name),
      callTool: (name, args, timeoutMs = 60_000) =>
        conn.client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs }) as Promise<ToolResult>,
      close,
      [Symbol.asyncDispose]: close,
    };
  }
  const { client } = await connectHttp(target.http, label);
  const close = once(() => client.close());
  return {
    era: '2025-11-25',
    pid: undefined,
    listTools: async () => (await client.listTools()).tools.map((t) => t.name),
    callTool: (name, args, timeoutMs = 60_000) =>
      client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs }) as Promise<ToolResult>,
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function connect2026(target: Target, label: string): Promise<EraClient> {
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  let pid: number | undefined;
  if ('stdio' in target) {
    const spec = target.stdio;
    const transport = new StdioClientTransport({
      command: spec.command ?? process.execPath,
      args: spec.args,
      env: childEnv(spec),
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', () => {});
    await withTimeout(
      client.connect(transport, { timeout: CONNECT_TIMEOUT_MS }),
      CONNECT_TIMEOUT_MS + 1_000,
      `${label} connect (2026-07-28)`,
    );
    pid = transport.pid ?? undefined;
  } else {
    const transport = new StreamableHTTPClientTransport(new URL(target.http));
    await withTimeout(
      client.connect(transport, { timeout: CONNECT_TIMEOUT_MS }),
      CONNECT_TIMEOUT_MS + 1_000,
      `${label} connect (2026-07-28)`,
    );
  }
  const close = once(() => client.close());
  return {
    era: '2026-07-28',
    pid,
    listTools: async () => (await client.listTools()).tools.map((t) => t.name),
    callTool: (name, args, timeoutMs = 60_000) => client.callTool({ name, arguments: args }, { timeout: timeoutMs }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Connects a client of `era` to `target` (spawning the server for stdio). `label` names it in errors. */
export function connectEra(era: Era, target: Target, label: string): Promise<EraClient> {
  return era === '2025-11-25' ? connect2025(target, label) : connect2026(target, label);
}
