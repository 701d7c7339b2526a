/**
 * Tasks as the built bin serves them over Streamable HTTP (raw 2026-07-28 JSON-RPC): two `--storage postgres`
 * replicas on one graph answer each other's tasks, behind OAuth for the same user only (the token's subject is the
 * owner), and without a token for any caller of that graph; a file-store bin offers them too, in its own process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { BIN_RESOURCE } from '@mcpkit/test-utils/auth-suite';
import { type HttpBin, spawnHttpBin } from '@mcpkit/test-utils/http-bin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, settled, TASKS, toolResult } from '../tasksRpc.js';
import { freshGraph, postgresUrl } from './fixture.js';

const bin = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const url = postgresUrl();
const bins: HttpBin[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(bins.map((b) => b.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const start = async (args: string[]) => {
  const started = await spawnHttpBin(bin, { args });
  bins.push(started);
  return started;
};
const pg = (graph: string) => ['--storage', 'postgres', '--database-url', url!, '--graph', graph, '--pool-size', '2'];
const READ = { name: 'read_graph', arguments: {} };

describe.skipIf(!url)('tasks across --storage postgres replicas (the bin)', () => {
  it('answers a task started on one replica from the other, for a caller without a token', async () => {
    const graph = freshGraph();
    const [a, b] = await Promise.all([start(pg(graph)), start(pg(graph))]);
    expect(
      (
        await rpc(
          a.endpoint,
          'tools/call',
          { name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: [] }] } },
          { optIn: false },
        )
      ).result?.isError,
    ).toBeUndefined();
    const { result: created } = await rpc(a.endpoint, 'tools/call', READ);
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await settled(b.endpoint, created?.taskId as string);
    expect(done.result).toEqual(toolResult((await rpc(b.endpoint, 'tools/call', READ, { optIn: false })).result));
    expect(done.result).toMatchObject({ structuredContent: { entities: [{ name: 'Ada' }] } });
  });

  describe('behind OAuth', () => {
    let as: TestAuthServer;
    beforeAll(async () => {
      as = await startAuthServer({ resources: { [BIN_RESOURCE]: { scopes: ['memory:read', 'memory:write'] } } });
    });
    afterAll(() => as?.close());

    it('answers the same user on the other replica, and another user there as for a made-up id', async () => {
      const graph = freshGraph();
      const oauth = ['--oauth-issuer', as.issuer, '--oauth-audience', BIN_RESOURCE];
      const [a, b] = await Promise.all([start([...pg(graph), ...oauth]), start([...pg(graph), ...oauth])]);
      const token = async (login: string) => ({
        authorization: `Bearer ${await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: 'memory:read', login })}`,
      });
      const [alice, bob] = await Promise.all([token('alice'), token('bob')]);
      const { result: created } = await rpc(a.endpoint, 'tools/call', READ, { headers: alice });
      const taskId = created?.taskId as string;
      expect(created?.resultType).toBe('task');
      expect((await settled(b.endpoint, taskId, alice)).result).toMatchObject({ structuredContent: { entities: [], relations: [] } });
      const madeUp = await rpc(b.endpoint, 'tasks/get', { taskId: 'made-up' }, { headers: bob });
      expect(madeUp.error?.code).toBe(-32602);
      expect((await rpc(b.endpoint, 'tasks/get', { taskId }, { headers: bob })).error).toEqual(madeUp.error);
      expect((await rpc(a.endpoint, 'tasks/get', { taskId }, { headers: bob })).error).toEqual(madeUp.error);
    });
  });
});

describe('tasks on the file store (the bin)', () => {
  it('lists the extension and answers an opted-in search_nodes with a task that completes in the same process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-memory-tasks-'));
    dirs.push(dir);
    const server = await start(['--memory-path', join(dir, 'memory.jsonl')]);
    const { result: discovered } = await rpc(server.endpoint, 'server/discover');
    expect((discovered?.capabilities as { extensions?: object } | undefined)?.extensions).toHaveProperty([TASKS]);
    const call = { name: 'search_nodes', arguments: { query: 'anything' } };
    const { result: created } = await rpc(server.endpoint, 'tools/call', call);
    expect(created).toMatchObject({ resultType: 'task' });
    const done = await settled(server.endpoint, created?.taskId as string);
    expect(done.result).toEqual(toolResult((await rpc(server.endpoint, 'tools/call', call, { optIn: false })).result));
  });
});
