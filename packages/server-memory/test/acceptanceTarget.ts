/**
 * Where the memory acceptance suite (`acceptanceSuite.ts`) runs: a client connected to a memory server
 * over an empty graph, and that graph as a store to seed and check. `inProcessTarget(open)` wires the
 * real server in-process around each store `open` gives (the v2 client, 2025 era); a test file
 * can instead give clients of built bins behind a proxy (`test/postgres/acceptance.stdio.test.ts`).
 */
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import type { Client as V2Client } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { vi } from 'vitest';
import { createMemoryServer, type GraphStore, KNOWLEDGE_GRAPH_URI, type Limits } from '../src/server.js';
import type { StoreFixture } from './storeSuite.js';

/** What the suite asks of a client: the calls the v1 SDK `Client` and the v2 `Client` share. */
export interface McpClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: unknown[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: unknown[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  getServerCapabilities(): { resources?: object } | undefined;
  ping(): Promise<unknown>;
}

/** The graph updates one client hears, recorded from its creation on (subscribed or not). */
export interface UpdateFeed {
  seen: string[];
  /** Subscribes to `memory://knowledge-graph`: `resources/subscribe` (2025 era) or a `subscriptions/listen` stream (2026). */
  subscribe(): Promise<void>;
  unsubscribe(): Promise<void>;
}

export interface AcceptanceSession extends AsyncDisposable {
  client: McpClient;
  /** The graph the client's server works on: to seed it and to check what a call saved. */
  store: GraphStore;
  /** Starts recording the updates the client hears; absent where clients cannot hear any (`hearsUpdates` false). */
  updates?: () => UpdateFeed;
}

export interface AcceptanceTarget {
  /** The protocol era of the clients: it decides how they subscribe. */
  era: '2025-11-25' | '2026-07-28';
  /** Whether its clients can hear graph updates: not 2025 clients of stateless replicas (no session, no stream). */
  hearsUpdates: boolean;
  /** A client on a server over an empty graph; a server with `limits` when given. */
  session(limits?: Partial<Limits>): Promise<AcceptanceSession>;
  /** Waits until a notification of the changes made so far would have reached `client`, before checking none did. */
  settle(client: McpClient): Promise<void>;
  /** Waits until `check` passes (the notifications it counts have arrived), or fails with its error. */
  arrived(check: () => void): Promise<void>;
  /** Fresh store fixtures, for the tests that wire their own server around a store (in-process targets only). */
  open?: () => Promise<StoreFixture>;
}

/** Records the `notifications/resources/updated` a client receives: a v1 SDK client (over HTTP) or a v2 client. */
export function updates(client: Client | V2Client): string[] {
  const seen: string[] = [];
  const record = (n: { params: { uri: string } }) => {
    seen.push(n.params.uri);
  };
  if (client instanceof Client) client.setNotificationHandler(ResourceUpdatedNotificationSchema, record);
  else client.setNotificationHandler('notifications/resources/updated', record);
  return seen;
}

/** The update feed of a 2025-era client with a session: `resources/subscribe`. */
export function subscribeFeed(client: Client | V2Client): UpdateFeed {
  const seen = updates(client);
  return {
    seen,
    subscribe: async () => void (await client.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI })),
    unsubscribe: async () => void (await client.unsubscribeResource({ uri: KNOWLEDGE_GRAPH_URI })),
  };
}

/**
 * The update feed of a 2026-era v2 client: a `subscriptions/listen` stream on the graph. `listening` runs once the
 * stream is acknowledged, to wait for whatever the server sets up behind it (another process's changes).
 */
export function listenFeed(client: V2Client, listening: () => Promise<void> = async () => {}): UpdateFeed {
  const seen: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => void seen.push(n.params.uri));
  let stream: { close(): Promise<void> } | undefined;
  return {
    seen,
    async subscribe() {
      stream = await client.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
      await listening();
    },
    async unsubscribe() {
      await stream?.close();
      stream = undefined;
    },
  };
}

/** The real server in-process around each store `open` gives, with the v2 client (`connectInMemory`, the 2025 era). */
export function inProcessTarget(open: () => Promise<StoreFixture>): AcceptanceTarget {
  return {
    era: '2025-11-25',
    hearsUpdates: true,
    open,
    // One ordered in-memory pair: what the server sent before its answer to the ping has arrived by then.
    async settle(client) {
      await client.ping();
    },
    async arrived(check) {
      await vi.waitFor(check, { timeout: 5000 });
    },
    async session(limits) {
      const f = await open();
      const pair = await connectInMemory(createMemoryServer({ store: f.store, ...(limits ? { limits } : {}) }));
      return {
        client: pair.client,
        store: f.store,
        updates: () => subscribeFeed(pair.client),
        [Symbol.asyncDispose]: async () => {
          await pair[Symbol.asyncDispose]();
          await f[Symbol.asyncDispose]();
        },
      };
    },
  };
}
