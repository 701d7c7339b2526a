/**
 * The v1 SDK's `WebSocketClientTransport` against a WebSocket server (`--transport ws`): connected in-process
 * to an endpoint, or to a built bin started with `--transport ws --port 0`. Use with `await using`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { WebSocket } from 'ws';
import type { BinSpawnOptions } from './binProcess.js';

/**
 * The v1 client transport opens `new WebSocket(url, 'mcp')` on the global `WebSocket`, which Node has from 22 on;
 * on Node 20 the `ws` library's (the same API) stands in.
 */
function ensureGlobalWebSocket(): void {
  if (typeof globalThis.WebSocket === 'undefined') (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
}

/** A v1 SDK `Client` connected to `endpoint` (`ws://…/mcp`) over `WebSocketClientTransport`. */
export async function connectWs(endpoint: string, name = 'mcpkit-test'): Promise<Client> {
  ensureGlobalWebSocket();
  const client = new Client({ name, version: '0.0.0' }, { capabilities: {} });
  await client.connect(new WebSocketClientTransport(new URL(endpoint)));
  return client;
}

export interface WsProcess extends AsyncDisposable {
  client: Client;
  /** The endpoint the bin printed: `ws://127.0.0.1:<port>/mcp`. */
  endpoint: string;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Closes the client, sends SIGTERM and resolves the exit code (null when a signal ended it). */
  stop(): Promise<number | null>;
}

/** Waits for the bin's "listening on ws://…" line on stderr; rejects with its stderr if it exits first. */
function listeningEndpoint(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onData = () => {
      const match = /listening on (ws:\/\/\S+)/.exec(stderr());
      if (!match?.[1]) return;
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      resolve(match[1]);
    };
    const onExit = (code: number | null) => reject(new Error(`the bin exited (${code}) before listening:\n${stderr()}`));
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Spawns a built bin with `--transport ws --port 0` and connects a v1 `Client` to the endpoint it prints. */
export async function spawnWs(bin: string, { args = [], env = {}, cwd }: BinSpawnOptions = {}): Promise<WsProcess> {
  const child = spawn(process.execPath, [bin, '--transport', 'ws', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(cwd ? { cwd } : {}),
  });
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const stderr = () => text;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const endpoint = await listeningEndpoint(child, stderr);
    const client = await connectWs(endpoint);
    const stop = async () => {
      await client.close();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    };
    return { client, endpoint, stderr, stop, [Symbol.asyncDispose]: async () => void (await stop()) };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
}
