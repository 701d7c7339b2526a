/**
 * Disposable wiring for tests with the official v2 client (`@modelcontextprotocol/client`), in each of
 * its negotiation modes, so one test can cover both protocol eras: `legacy` (the 2025 `initialize`
 * handshake), `auto` (probes `server/discover`, lands on 2026-07-28 against our servers) and
 * `2026-07-28` (pinned: no fallback). Use with `await using`.
 */

import type { ClientCapabilities, VersionNegotiationMode } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, type McpServer, type Server } from '@modelcontextprotocol/server';
import type { ServerApp } from '../runner/types.js';
import { forEra } from '../skills/support.js';

/** How the v2 client picks its era: `legacy` → 2025-11-25, `auto` and `2026-07-28` → 2026-07-28 on our servers. */
export type V2Mode = 'legacy' | 'auto' | '2026-07-28';

/** Every mode, for `describe.each` / `for` loops over both eras. */
export const V2_MODES: readonly V2Mode[] = ['legacy', 'auto', '2026-07-28'];

export interface V2ClientOptions {
  /** Default `auto`. */
  mode?: V2Mode;
  name?: string;
  capabilities?: ClientCapabilities;
}

/** A server factory, or a whole `ServerApp` (its `createServer` is used). */
export type ServerFactoryLike = ServerApp | (() => McpServer | Server);

function negotiation(mode: V2Mode): VersionNegotiationMode {
  return mode === '2026-07-28' ? { pin: '2026-07-28' } : mode;
}

/** A v2 `Client` in `mode` (not yet connected). */
export function newV2Client({ mode = 'auto', name = 'mcpkit-test-v2', capabilities = {} }: V2ClientOptions = {}): Client {
  return new Client({ name, version: '0.0.0' }, { capabilities, versionNegotiation: { mode: negotiation(mode) } });
}

function factoryOf(app: ServerFactoryLike): () => McpServer | Server {
  return typeof app === 'function' ? app : () => app.createServer();
}

export interface V2InMemoryPair extends AsyncDisposable {
  client: Client;
}

/**
 * A v2 client wired to servers from `app`, in-process. `legacy`: one server over a linked
 * `InMemoryTransport` pair (a 2025 session, like stdio). `auto` / `2026-07-28`: the SDK's
 * `createMcpHandler(factory)` served through its `fetch` (no socket), one server per request, which is
 * how the SDK tests the 2026 era in-process.
 */
export async function connectV2InMemory(app: ServerFactoryLike, options: V2ClientOptions = {}): Promise<V2InMemoryPair> {
  const factory = factoryOf(app);
  const client = newV2Client(options);
  if ((options.mode ?? 'auto') === 'legacy') {
    const server = factory();
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    return {
      client,
      async [Symbol.asyncDispose]() {
        await client.close();
        await server.close();
      },
    };
  }
  const handler = createMcpHandler(forEra(factory));
  const transport = new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
    fetch: (url, init) => handler.fetch(new Request(url, init)),
  });
  await client.connect(transport);
  return {
    client,
    async [Symbol.asyncDispose]() {
      await client.close();
      await handler.close();
    },
  };
}

export interface V2HttpClient extends AsyncDisposable {
  client: Client;
}

/** Connects a v2 client (`mode` default `auto`) to a Streamable HTTP endpoint (e.g. `startHttp(app).endpoint`). */
export async function connectHttpV2(
  endpoint: string | URL,
  { headers, ...clientOptions }: V2ClientOptions & { headers?: Record<string, string> } = {},
): Promise<V2HttpClient> {
  const client = newV2Client(clientOptions);
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), headers ? { requestInit: { headers } } : {}));
  return {
    client,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}
