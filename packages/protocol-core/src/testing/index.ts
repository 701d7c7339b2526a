/**
 * Disposable wiring for tests: a real SDK `Client` against a real server, in-process, over stdio
 * (a spawned built bin) or over HTTP on 127.0.0.1:0. Use with `await using`.
 */
import { spawn } from 'node:child_process';
import {
  InMemoryTransport,
  type Client as V2Client,
  SSEClientTransport as V2SSEClientTransport,
  StreamableHTTPClientTransport as V2StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport as V1InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type HttpOptions, type RunningHttpServer, serveHttp } from '../runner/http/serve.js';
import type { ServerApp } from '../runner/types.js';
import { binTransportParams, keepStderr } from './binProcess.js';
import { newV2Client, type V2ClientOptions } from './v2.js';

export { type CheckSkillsOptions, checkSkills, connectWithContext, type SkillsPair, type SkillsReport } from '../skills/check.js';
export { type AuthGuardForOptions, authGuardFor } from './auth.js';
export { freePort } from './freePort.js';
export {
  type OtlpKeyValue,
  type OtlpPoint,
  type OtlpReceiver,
  type OtlpSpan,
  otlpAttributes,
  otlpEnv,
  startOtlpReceiver,
} from './otlp.js';
export {
  connectHttpV2,
  connectV2InMemory,
  newV2Client,
  type ServerFactoryLike,
  V2_MODES,
  type V2ClientOptions,
  type V2HttpClient,
  type V2InMemoryPair,
  type V2Mode,
} from './v2.js';
export { connectWs, spawnWs, type WsProcess } from './ws.js';

export interface ClientOptions {
  name?: string;
  capabilities?: ClientCapabilities;
}

function newClient({ name = 'mcpkit-test', capabilities = {} }: ClientOptions = {}): Client {
  return new Client({ name, version: '0.0.0' }, { capabilities });
}

/** The v2 client's name and capabilities, for `connectInMemory` (its negotiation is always `legacy`). */
export type InMemoryClientOptions = Omit<V2ClientOptions, 'mode'>;

export interface InMemoryPair extends AsyncDisposable {
  client: V2Client;
  server: McpServer;
}

/**
 * A real v2 `Client` (`@modelcontextprotocol/client`) wired to `server` over a linked `InMemoryTransport`
 * pair: one 2025-11-25 session (`legacy` negotiation, which is where `auto` lands on a linked pair too).
 * The default for in-process tests; `connectV1InMemory` keeps the v1 client's path covered.
 */
export async function connectInMemory(
  server: McpServer,
  { name = 'mcpkit-test', capabilities = {} }: InMemoryClientOptions = {},
): Promise<InMemoryPair> {
  const client = newV2Client({ mode: 'legacy', name, capabilities });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return disposablePair(client, server);
}

/** `client` and `server` with one dispose that closes both, client first. */
function disposablePair<C extends { close(): Promise<void> }>(client: C, server: McpServer) {
  return {
    client,
    server,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

export interface V1InMemoryPair extends AsyncDisposable {
  client: Client;
  server: McpServer;
}

/** A v1 SDK `Client` (`@modelcontextprotocol/sdk`) wired to `server` over `InMemoryTransport`: the 2025 v1 client path. */
export async function connectV1InMemory(server: McpServer, options?: ClientOptions): Promise<V1InMemoryPair> {
  const client = newClient(options);
  const [clientTransport, serverTransport] = V1InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return disposablePair(client, server);
}

/** Sends `params` as they are, past the client's own typing: for requests whose shape is wrong on purpose. */
export function sendRaw(client: Client | V2Client, method: string, params: unknown): Promise<unknown> {
  return (client as Client).request({ method, params } as never, z.any());
}

/**
 * The one-line `isError` result a tool call gets when its arguments fail the input schema. `problem` is
 * the SDK v2 wording: `<path>: <zod message>`, e.g. `marker: Invalid input: expected string, received number`
 * (v1 put the path last, after ` at `, and prefixed `MCP error -32602: `).
 */
export function invalidArgumentsResult(tool: string, problem: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `Input validation error: Invalid arguments for tool ${tool}: ${problem}` }],
  };
}

export interface StdioProcess extends AsyncDisposable {
  client: V2Client;
  transport: V2StdioClientTransport;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
}

export interface SpawnOptions extends V2ClientOptions {
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * Spawns a built bin (`node <bin> …args`) and connects a v2 client (`@modelcontextprotocol/client`) to it
 * over stdio. `mode` defaults to `legacy` (one process, a 2025-11-25 session); in `auto` / `2026-07-28`
 * the SDK probes on a short-lived sibling process first, so the bin runs twice.
 */
export async function spawnStdio(
  bin: string,
  { args = [], env = {}, cwd, mode = 'legacy', ...clientOptions }: SpawnOptions = {},
): Promise<StdioProcess> {
  const transport = new V2StdioClientTransport(binTransportParams(bin, { args, env, ...(cwd ? { cwd } : {}) }));
  const stderr = keepStderr(transport);
  const client = newV2Client({ mode, ...clientOptions });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

export interface V1StdioProcess extends AsyncDisposable {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
}

export interface V1SpawnOptions extends ClientOptions {
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** Like `spawnStdio`, with a v1 SDK `Client` (`@modelcontextprotocol/sdk`): the v1 client path over stdio. */
export async function spawnStdioV1(
  bin: string,
  { args = [], env = {}, cwd, ...clientOptions }: V1SpawnOptions = {},
): Promise<V1StdioProcess> {
  const transport = new StdioClientTransport(binTransportParams(bin, { args, env, ...(cwd ? { cwd } : {}) }));
  const stderr = keepStderr(transport);
  const client = newClient(clientOptions);
  await client.connect(transport);
  return {
    client,
    transport,
    stderr,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

export interface BinRun {
  /** Exit code, or null when a signal ended the process. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a built bin to completion (`node <bin> …args`) with stdin closed and returns its exit code and
 * output; for configuration errors, `--help` and `--version`. Killed after `timeoutMs`.
 */
export async function runBin(
  bin: string,
  {
    args = [],
    env = {},
    cwd,
    timeoutMs = 30_000,
  }: { args?: string[]; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<BinRun> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export interface HttpFixture extends AsyncDisposable {
  running: RunningHttpServer;
  url: string;
  endpoint: string;
  /**
   * A new v2 client (`@modelcontextprotocol/client`) connected to the endpoint (Streamable HTTP, or SSE
   * in `sse` mode); `mode` defaults to `legacy` (a 2025-11-25 session). Closed on dispose.
   */
  connect(options?: V2ClientOptions & { headers?: Record<string, string> }): Promise<V2Client>;
  /** A new v1 SDK `Client` (`@modelcontextprotocol/sdk`) connected the same way: the v1 client path. */
  connectV1(options?: ClientOptions & { headers?: Record<string, string> }): Promise<Client>;
}

/** What `startHttp`'s clients give their transport: headers on every request (and on the SSE stream). */
interface HttpTransportOptions {
  requestInit?: RequestInit;
  eventSourceInit?: { fetch: (url: string | URL, init?: RequestInit) => Promise<Response> };
}

/** Serves `app` on 127.0.0.1 with a free port. */
export async function startHttp(app: ServerApp, options: Partial<HttpOptions> = {}): Promise<HttpFixture> {
  const running = await serveHttp(app, { mode: 'http', host: '127.0.0.1', port: 0, ...options });
  const clients: { close(): Promise<void> }[] = [];
  const sse = running.endpoint.endsWith('/sse');
  const eventSourceInit = (headers: Record<string, string>) => ({
    fetch: (u: string | URL, init?: RequestInit) => fetch(u, { ...init, headers: { ...init?.headers, ...headers } }),
  });
  /** Connects `client` to the endpoint through the SDK's SSE or Streamable HTTP client transport (v1 or v2). */
  async function open<C extends { connect(transport: never): Promise<void>; close(): Promise<void> }>(
    client: C,
    transports: Record<'sse' | 'http', new (url: URL, options: HttpTransportOptions) => Parameters<C['connect']>[0]>,
    headers: Record<string, string> | undefined,
  ): Promise<C> {
    const url = new URL(running.endpoint);
    const requestInit = headers ? { requestInit: { headers } } : {};
    const transport = sse
      ? new transports.sse(url, { ...requestInit, ...(headers ? { eventSourceInit: eventSourceInit(headers) } : {}) })
      : new transports.http(url, requestInit);
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  return {
    running,
    url: running.url,
    endpoint: running.endpoint,
    connect: ({ headers, mode = 'legacy', ...clientOptions } = {}) =>
      open(newV2Client({ mode, ...clientOptions }), { sse: V2SSEClientTransport, http: V2StreamableHTTPClientTransport }, headers),
    connectV1: ({ headers, ...clientOptions } = {}) =>
      open(newClient(clientOptions), { sse: SSEClientTransport, http: StreamableHTTPClientTransport }, headers),
    async [Symbol.asyncDispose]() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await running.close();
    },
  };
}
