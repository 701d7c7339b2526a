/**
 * OAuth against the built bin over Streamable HTTP: protocol-core's auth suite (metadata, 401, valid tokens in
 * both eras and the v1 client, 403 step-up, wrong audience, another user's session), and `--graph-per-user`: two
 * users logged in through the authorization code flow never see each other's entities, with the file store and
 * with PostgreSQL, in both eras; each user's graph is where the README says it is.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { BIN_RESOURCE, describeOAuthBin } from '@mcpkit/test-utils/auth-suite';
import { type AnyClient, connectWithToken, type HttpBin, resultText, spawnHttpBin } from '@mcpkit/test-utils/http-bin';
import { StreamableHTTPClientTransport, Client as V2Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWLEDGE_GRAPH_URI } from '../src/server.js';
import { userGraphKey } from '../src/userGraphs.js';
import { freshGraph, postgresUrl } from './postgres/fixture.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const SCOPES = ['memory:read', 'memory:write'];
const TOOLS = [
  'create_entities',
  'create_relations',
  'add_observations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
  'read_graph',
  'search_nodes',
  'open_nodes',
];
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-memory-auth-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const entity = (name: string) => ({ name: 'create_entities', arguments: { entities: [{ name, entityType: 'person', observations: [] }] } });
const names = async (client: AnyClient) =>
  ((await client.callTool({ name: 'read_graph', arguments: {} })).structuredContent as { entities: { name: string }[] }).entities.map(
    (e) => e.name,
  );

describeOAuthBin({
  bin,
  args: () => ['--memory-path', join(freshDir(), 'memory.jsonl')],
  scopes: SCOPES,
  tools: TOOLS,
  call: {
    name: 'read_graph',
    arguments: {},
    scope: 'memory:read',
    check: (r) => expect(r.structuredContent).toMatchObject({ entities: [] }),
  },
  otherScopeCall: { ...entity('Nope'), scope: 'memory:write' },
  // A writer does not read the graph as a resource either.
  read: { method: 'resources/read', params: { uri: 'memory://knowledge-graph' }, scope: 'memory:read', granted: 'memory:write' },
});

/** Two users (alice, bob) against one `--graph-per-user` bin: nothing crosses, in either era. */
function describePerUser(label: string, start: () => Promise<{ args: string[]; graphOf: (subject: string) => string[] } | undefined>) {
  describe(`--graph-per-user, ${label}`, () => {
    let as: TestAuthServer;
    let server: HttpBin | undefined;
    let graphOf: ((subject: string) => string[]) | undefined;

    beforeAll(async () => {
      as = await startAuthServer({ resources: { [BIN_RESOURCE]: { scopes: SCOPES } } });
      const setup = await start();
      if (!setup) return;
      graphOf = setup.graphOf;
      server = await spawnHttpBin(bin, {
        args: [...setup.args, '--graph-per-user', '--oauth-issuer', as.issuer, '--oauth-audience', BIN_RESOURCE],
      });
    });
    afterAll(async () => {
      await server?.close();
      await as?.close();
    });

    it('keeps one graph per subject: each user sees only its own entities, in both eras; the graph is where the README says', async (t) => {
      if (!server || !graphOf) return t.skip('no PostgreSQL to test with');
      const scope = 'memory:read memory:write';
      const alice = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope, login: 'alice' });
      const bob = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope, login: 'bob' });
      for (const kind of ['v2 legacy', 'v2 2026-07-28'] as const) {
        await using a = await connectWithToken(kind, server.endpoint, alice);
        await using b = await connectWithToken(kind, server.endpoint, bob);
        expect((await a.callTool(entity(`Alice ${kind}`))).isError).toBeFalsy();
        expect((await b.callTool(entity(`Bob ${kind}`))).isError).toBeFalsy();
        expect(await names(a)).not.toContain(`Bob ${kind}`);
        expect(await names(b)).not.toContain(`Alice ${kind}`);
        expect(await names(a)).toContain(`Alice ${kind}`);
        const search = await b.callTool({ name: 'search_nodes', arguments: { query: 'Alice' } });
        expect((search.structuredContent as { entities: unknown[] }).entities).toEqual([]);
        const open = await b.callTool({ name: 'open_nodes', arguments: { names: [`Alice ${kind}`] } });
        expect((open.structuredContent as { entities: unknown[] }).entities).toEqual([]);
        // bob cannot delete alice's entity: the delete runs on bob's graph.
        await b.callTool({ name: 'delete_entities', arguments: { entityNames: [`Alice ${kind}`] } });
        expect(await names(a)).toContain(`Alice ${kind}`);
      }
      // Read back the way an operator would: the graph named after the hash of each subject.
      const aliceGraph = graphOf('alice');
      await using direct = await spawnStdio(bin, { mode: 'legacy', args: aliceGraph });
      const stored = (await direct.client.callTool({ name: 'read_graph', arguments: {} })).structuredContent as {
        entities: { name: string }[];
      };
      expect(stored.entities.map((e) => e.name).sort()).toEqual(['Alice v2 2026-07-28', 'Alice v2 legacy']);
    });

    it("a 2025 subscription hears its own user's writes, not another user's", async (t) => {
      if (!server) return t.skip('no PostgreSQL to test with');
      const scope = 'memory:read memory:write';
      const alice = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope, login: 'alice' });
      const bob = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope, login: 'bob' });
      const listener = new V2Client({ name: 'listener', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
      await listener.connect(
        new StreamableHTTPClientTransport(new URL(server.endpoint), { requestInit: { headers: { Authorization: `Bearer ${alice}` } } }),
      );
      try {
        const heard: string[] = [];
        listener.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
        await listener.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI });
        await using b = await connectWithToken('v2 legacy', server.endpoint, bob);
        await b.callTool(entity('Bob heard?'));
        // Kept: a must-not on the session's own stream, where alice's update would look the same; no marker to wait for.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(heard).toEqual([]);
        await listener.callTool(entity('Alice heard'));
        await expect.poll(() => heard, { timeout: 5000 }).toContain(KNOWLEDGE_GRAPH_URI);
      } finally {
        await listener.close();
      }
    });

    it("a 2026 subscriptions/listen stream hears its own user's writes, not another user's", async (t) => {
      if (!server) return t.skip('no PostgreSQL to test with');
      const scope = 'memory:read memory:write';
      const alice = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope, login: 'alice' });
      const bob = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope, login: 'bob' });
      const listener = new V2Client({ name: 'listener', version: '0.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await listener.connect(
        new StreamableHTTPClientTransport(new URL(server.endpoint), { requestInit: { headers: { Authorization: `Bearer ${alice}` } } }),
      );
      try {
        const heard: string[] = [];
        listener.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
        const sub = await listener.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
        await using b = await connectWithToken('v2 2026-07-28', server.endpoint, bob);
        // bob's write is announced (or not) before its call returns, so ahead of alice's on alice's stream.
        await b.callTool(entity('Bob listened?'));
        await listener.callTool(entity('Alice listened'));
        await expect.poll(() => heard, { timeout: 5000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
        await sub.close();
      } finally {
        await listener.close();
      }
    });

    it('refuses a token that names no user (client credentials) with a tool error, never a shared graph', async (t) => {
      if (!server) return t.skip('no PostgreSQL to test with');
      const service = await as.clientCredentialsToken({ resource: BIN_RESOURCE, scope: 'memory:read memory:write' });
      await using client = await connectWithToken('v2 2026-07-28', server.endpoint, service);
      const result = await client.callTool(entity('Machine'));
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/one graph per user, and this access token names no user/);
    });
  });
}

describePerUser('file store', async () => {
  const dir = freshDir();
  const file = join(dir, 'memory.jsonl');
  return {
    args: ['--memory-path', file],
    graphOf: (subject) => {
      const own = `memory.user-${userGraphKey(subject)}.jsonl`;
      // The users' files are siblings of the memory file, named after the hash of the subject; nothing else.
      expect(
        readdirSync(dir)
          .filter((f) => f.endsWith('.jsonl'))
          .sort(),
      ).toEqual([`memory.user-${userGraphKey('alice')}.jsonl`, `memory.user-${userGraphKey('bob')}.jsonl`].sort());
      return ['--memory-path', join(dir, own)];
    },
  };
});

describePerUser('PostgreSQL', async () => {
  const url = postgresUrl();
  if (!url) return undefined;
  const graph = freshGraph();
  return {
    args: ['--storage', 'postgres', '--database-url', url, '--graph', graph],
    graphOf: (subject) => ['--storage', 'postgres', '--database-url', url, '--graph', `${graph}/user:${userGraphKey(subject)}`],
  };
});

describe('configuration', () => {
  it('--graph-per-user without --oauth-issuer exits 2 with one line', async () => {
    const run = await runBin(bin, { args: ['--graph-per-user', '--memory-path', join(freshDir(), 'm.jsonl')] });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/--graph-per-user needs --oauth-issuer/)]);
  });

  it('--auth-token with --oauth-issuer exits 2', async () => {
    const run = await runBin(bin, {
      args: ['--transport', 'http', '--auth-token', 'x', '--oauth-issuer', 'http://127.0.0.1:9/', '--oauth-audience', BIN_RESOURCE],
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--auth-token and --oauth-issuer cannot be used together/);
  });

  it('warns when bound beyond loopback without any authentication', async () => {
    const child = spawn(
      process.execPath,
      [bin, '--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--memory-path', join(freshDir(), 'm.jsonl')],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    try {
      await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/listening on/);
      expect(stderr).toMatch(/listening on 0\.0\.0\.0 without authentication: anyone who can reach this address can use every tool/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
