import { fileURLToPath } from 'node:url';
import { crc32, inflateRawSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ClientCapabilities,
  type ClientRequest,
  type JSONRPCMessage,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/server';
import { vi } from 'vitest';
import { z } from 'zod';
import type { EverythingOptions } from '../../src/context.js';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';

/** The installed reference: npm @modelcontextprotocol/server-everything@2025.11.25. */
export const REFERENCE_BIN = fileURLToPath(new URL('../../node_modules/reference-everything-legacy/dist/index.js', import.meta.url));
export const REFERENCE_INSTRUCTIONS = fileURLToPath(
  new URL('../../node_modules/reference-everything-legacy/dist/instructions.md', import.meta.url),
);

export interface LogLine {
  level: string;
  logger?: string;
  data: unknown;
}

export interface Wired extends AsyncDisposable {
  client: Client;
  /** Every message the server sent, as it came over the wire (before the client parsed it). */
  received: JSONRPCMessage[];
  /** `notifications/message` params, in order. */
  logs: LogLine[];
  /** URIs of `notifications/resources/updated`, in order. */
  updates: string[];
}

export interface WireOptions {
  capabilities?: ClientCapabilities;
  /** Runs before the client connects: request handlers the server may call during the handshake (`roots/list`). */
  setup?: (client: Client) => void;
}

async function connectClient(transport: Transport, { capabilities = {}, setup }: WireOptions, close: () => Promise<void>): Promise<Wired> {
  const client = new Client({ name: 'legacy-test', version: '0.0.0' }, { capabilities });
  const received: JSONRPCMessage[] = [];
  const logs: LogLine[] = [];
  const updates: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params as LogLine));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  setup?.(client);
  // `Protocol.connect` keeps an `onmessage` set before it and calls it first.
  transport.onmessage = (message) => void received.push(message);
  await client.connect(transport);
  return { client, received, logs, updates, [Symbol.asyncDispose]: close };
}

/**
 * A real SDK `Client` wired in-process to `server`, like `connectInMemory`, but with client handlers set
 * before the handshake and the server's raw messages recorded.
 */
export async function wire(server: McpServer, options: WireOptions = {}): Promise<Wired> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  let wired: Wired | undefined;
  wired = await connectClient(clientTransport, options, async () => {
    await wired?.client.close();
    await server.close();
  });
  return wired;
}

/** `wire(createLegacyServer(options))` with short intervals off unless asked for. */
export function wireLegacy(options: EverythingOptions = {}, wireOptions: WireOptions = {}): Promise<Wired> {
  return wire(createLegacyServer({ intervals: { loggingMs: 0, resourceUpdatesMs: 0 }, ...options }), wireOptions);
}

/** A legacy server's options with both simulations off (no log messages, no resource updates). */
export const quiet = { intervals: { loggingMs: 0, resourceUpdatesMs: 0 } };

/** The JSON-RPC error `promise` rejects with, as `{ code, message }`; fails when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error('expected the request to fail');
}

/** The same without the v1 client's `MCP error <code>: ` prefix (the legacy profile reports tool failures as the reference does). */
export async function failureText(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  const { code, message } = await failure(promise);
  return { code, message: message.replace(/^MCP error -?\d+: /, '') };
}

/** Each content block of a tool result: its text, or `<type>` for a block without one. */
export function text(result: unknown): string[] {
  return ((result as { content: unknown }).content as { type: string; text?: string }[]).map((block) => block.text ?? `<${block.type}>`);
}

/** The reference bin over stdio, with the same client. */
export async function spawnReference(options: WireOptions = {}): Promise<Wired> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [REFERENCE_BIN],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  let wired: Wired | undefined;
  wired = await connectClient(transport, options, async () => {
    // The reference never exits on its own (its intervals keep it alive); the SDK would wait 2 s before SIGTERM.
    if (transport.pid) process.kill(transport.pid, 'SIGTERM');
    await wired?.client.close();
  });
  return wired;
}

/** Sends a request and returns the result as it came (no SDK result schema: nothing stripped). */
export function raw(client: Client, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
  return client.request({ method, ...(params ? { params } : {}) } as unknown as ClientRequest, z.looseObject({}));
}

/** Resolves once `check()` is true, polling every 5 ms; fails after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error('condition not met in time');
    },
    { timeout: timeoutMs, interval: 5 },
  );
}

/** Reads a ZIP archive (central directory first, as unzip does), checking each entry's CRC-32. */
export function readZip(archive: Buffer): Map<string, Buffer> {
  const end = archive.length - 22;
  if (archive.readUInt32LE(end) !== 0x06054b50) throw new Error('no end of central directory record');
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (archive.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory header');
    const method = archive.readUInt16LE(at + 10);
    const crc = archive.readUInt32LE(at + 16);
    const compressed = archive.readUInt32LE(at + 20);
    const size = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const local = archive.readUInt32LE(at + 42);
    const name = archive.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (archive.readUInt32LE(local) !== 0x04034b50) throw new Error('bad local header');
    const start = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    const body = archive.subarray(start, start + compressed);
    const data = method === 8 ? inflateRawSync(body) : method === 0 ? Buffer.from(body) : undefined;
    if (!data || data.length !== size || crc32(data) >>> 0 !== crc) throw new Error(`entry ${name} is corrupt`);
    files.set(name, data);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

/** A `data:` URI carrying `text` in base64. */
export function dataUri(text: string, mimeType = 'text/plain'): string {
  return `data:${mimeType};base64,${Buffer.from(text).toString('base64')}`;
}
