import {
  type ClientOptions,
  connectInMemory,
  connectV1InMemory,
  type InMemoryClientOptions,
  type InMemoryPair,
  type V1InMemoryPair,
} from '@mcpkit/protocol-core/testing';
import type { ClientCapabilities as V2ClientCapabilities } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/server';
import { expect, vi } from 'vitest';
import type { EverythingIntervals, EverythingOptions } from '../../src/context.js';
import { createEverythingServer } from '../../src/server.js';

/** Every capability a client can declare, so every capability-gated tool gets registered (for either SDK's client). */
export const FULL_CAPABILITIES: ClientCapabilities & V2ClientCapabilities = {
  roots: { listChanged: true },
  sampling: {},
  elicitation: { form: {}, url: {} },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

/** The tools every client gets, whatever it declared (in registration order; the task tool aside). */
export const UNGATED_TOOLS = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-long-running-operation',
];

/** Short timings, so the simulations tick within a test. */
export const FAST: EverythingIntervals = { loggingMs: 15, resourceUpdatesMs: 15, researchStageMs: 5, taskPollMs: 5, rootsSyncDelayMs: 0 };

export function currentServer(options: EverythingOptions = {}): McpServer {
  return createEverythingServer({ profile: 'current', intervals: FAST, ...options });
}

/** A current-profile server and a real v2 client in-process. */
export async function connectCurrent(options: EverythingOptions = {}, client: InMemoryClientOptions = {}): Promise<InMemoryPair> {
  return connectInMemory(currentServer(options), client);
}

/** The same with the v1 SDK client, for its experimental tasks API (2025 tasks; the v2 client has none). */
export async function connectCurrentV1(options: EverythingOptions = {}, client: ClientOptions = {}): Promise<V1InMemoryPair> {
  return connectV1InMemory(currentServer(options), client);
}

export interface CustomPair extends AsyncDisposable {
  client: Client;
  server: McpServer;
}

/**
 * Like `connectInMemory`, for a client that needs constructor options `connectInMemory` does not take
 * (a task store, for client-side tasks).
 */
export async function connectClient(
  server: McpServer,
  { capabilities = {}, taskStore }: { capabilities?: ClientCapabilities; taskStore?: TaskStore } = {},
): Promise<CustomPair> {
  const client = new Client({ name: 'mcpkit-test', version: '0.0.0' }, { capabilities, ...(taskStore ? { taskStore } : {}) });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    client,
    server,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

/** The text of every text block of a tool result. */
export function texts(result: unknown): string[] {
  return ((result as CallToolResult).content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : []));
}

/** The single text of a successful tool result. */
export function text(result: unknown): string {
  expect((result as CallToolResult).isError, JSON.stringify(result)).toBeFalsy();
  const all = texts(result);
  expect(all).toHaveLength(1);
  return all[0]!;
}

/** Asserts a successful tool result and returns it. */
export function ok<T>(result: T): T {
  expect((result as CallToolResult).isError, JSON.stringify(result)).toBeFalsy();
  return result;
}

/** The text of an `isError` result. */
export function errorText(result: unknown): string {
  expect((result as CallToolResult).isError, JSON.stringify(result)).toBe(true);
  return texts(result).join('\n');
}

/** Resolves once `check` returns true (polling every few ms), or fails after `ms`. */
export async function until(check: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: ms, interval: 5 },
  );
}

/** `data:` URI of a UTF-8 text. */
export const dataUri = (content: string, mime = 'text/plain') => `data:${mime};base64,${Buffer.from(content).toString('base64')}`;
