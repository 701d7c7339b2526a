/**
 * A small app behind the HTTP runner with an auth guard, for the OAuth end-to-end tests: tools `whoami` (sees
 * `extra.http?.authInfo`) and `note`, a resource `test://secret` with subscriptions, each with its scope, and
 * `serveProtected` to serve it against a `TestAuthServer` (JWT or introspection).
 */

import type { TestAuthServer } from '@mcpkit/test-utils/auth';
import { z } from 'zod';
import { createAuthGuard } from '../../src/auth/guard.ts';
import { parseAuthConfig } from '../../src/auth/options.ts';
import { createMcpServer, defineResource, defineTool, registerResources, registerTools } from '../../src/define.ts';
import { textResult } from '../../src/results.ts';
import type { HttpOptions } from '../../src/runner/http/options.ts';
import type { ServerApp } from '../../src/runner/types.ts';
import { enableSubscriptions } from '../../src/subscriptions.ts';
import { freePort, type HttpFixture, startHttp } from '../../src/testing/index.ts';

export const SCOPES = { tools: { whoami: 'test:read', note: 'test:write' }, resources: 'test:read' };
export const SECRET_URI = 'test://secret';
const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** `whoami` answers who the handler sees (`extra.http?.authInfo`); `note` needs a scope the read-only tokens lack. */
export function testApp(): ServerApp {
  return {
    scopes: SCOPES,
    createServer: () => {
      const server = createMcpServer({ name: 'auth-e2e', version: '0.0.0' });
      const whoami = defineTool({
        name: 'whoami',
        title: 'Who am I',
        description: 'The caller as the server sees it',
        input: {},
        annotations: ANNOTATIONS,
        handler: async (_args, _ctx: unknown, extra) =>
          textResult(JSON.stringify({ subject: extra.http?.authInfo?.extra?.subject ?? null, scopes: extra.http?.authInfo?.scopes ?? [] })),
      });
      const note = defineTool({
        name: 'note',
        title: 'Note',
        description: 'Pretends to write',
        input: { text: z.string() },
        annotations: { ...ANNOTATIONS, readOnlyHint: false },
        handler: async ({ text }) => textResult(`noted ${text}`),
      });
      registerTools(server, {}, [whoami, note]);
      const secret = defineResource({
        name: 'secret',
        title: 'Secret',
        description: 'What only a reader may read',
        mimeType: 'text/plain',
        uri: SECRET_URI,
        read: (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'the shared secret' }] }),
      });
      registerResources(server, {}, [secret]);
      enableSubscriptions(server);
      return server;
    },
  };
}

export interface Protected {
  http: HttpFixture;
  resource: string;
  clock: { offsetMs: number };
}

export async function serveProtected(
  as: TestAuthServer,
  { introspect = false, http: httpOptions = {} }: { introspect?: boolean; http?: Partial<HttpOptions> } = {},
): Promise<Protected> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const config = parseAuthConfig(
    ['--oauth-issuer', as.issuer, '--oauth-audience', resource, ...(introspect ? ['--oauth-introspect'] : [])],
    introspect ? { MCP_OAUTH_CLIENT_ID: as.resourceServer.id, MCP_OAUTH_CLIENT_SECRET: as.resourceServer.secret } : {},
  );
  if (!config) throw new Error('OAuth config expected');
  const clock = { offsetMs: 0 };
  const guard = createAuthGuard(config, {
    scopes: SCOPES,
    resourceName: 'auth-e2e',
    now: () => Date.now() + clock.offsetMs,
    introspectionCacheMs: 0,
  });
  const http = await startHttp(testApp(), { port, auth: guard, ...httpOptions });
  return { http, resource, clock };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
