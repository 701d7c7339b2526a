/**
 * Tasks on PostgreSQL, as the bin wires them (`openPostgresStoreWithTasks`, `memoryTasks`): two replicas (each its
 * own HTTP runner, pool and tasks extension) on one graph of the run's database, raw 2026-07-28 JSON-RPC. An
 * opted-in `read_graph` / `search_nodes` gets a task whose result is the inline answer; a task started on one replica
 * is answered by the other (same owner: no token, the graph's); a call that does not opt in is answered exactly as
 * by a server without tasks; the ttl follows the injected clock; with the database down at start an opted-in call
 * answers the inline error, and gets a task once the database is back.
 */
import { startHttp } from '@mcpkit/protocol-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/server.js';
import { openPostgresStoreWithTasks } from '../../src/store/postgres/taskTable.js';
import type { GraphStore } from '../../src/store/types.js';
import { memoryTasks } from '../../src/tasks.js';
import { rpc, settled, TASKS, toolResult } from '../tasksRpc.js';
import { freshGraph, postgresUrl } from './fixture.js';
import { startRelay } from './proxy.js';

const url = postgresUrl();
const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
const now = () => clock.now;
const HOUR = 3_600_000;

type Http = Awaited<ReturnType<typeof startHttp>>;
interface Replica {
  http: Http;
  store: GraphStore;
}

/** One replica as `--storage postgres` makes it (with `tasks: false`, as a server without tasks). */
async function replica(graph: string, { tasks: withTasks = true, at = url! } = {}): Promise<Replica> {
  const opened = openPostgresStoreWithTasks({ url: at, graph, poolSize: 4, now, connectTimeoutMs: 2000 });
  const tasks = withTasks ? memoryTasks({ shared: { store: opened.tasks, graph }, now }) : undefined;
  const http = await startHttp({
    createServer: () => createMemoryServer({ store: opened.store, ...(tasks ? { tasks } : {}) }),
    ...(tasks ? { preflight: (message: unknown) => tasks.preflight(message) } : {}),
    close: () => {
      tasks?.close();
      return opened.store.close();
    },
  });
  return { http, store: opened.store };
}

const graph = freshGraph();
let a: Replica;
let b: Replica;
let plain: Replica;
let elsewhere: Replica;

describe.skipIf(!url)('tasks on PostgreSQL: read_graph and search_nodes', () => {
  beforeAll(async () => {
    [a, b, plain, elsewhere] = await Promise.all([replica(graph), replica(graph), replica(graph, { tasks: false }), replica(freshGraph())]);
    const entities = Array.from({ length: 60 }, (_, i) => ({ name: `city ${i}`, entityType: 'city', observations: [`number ${i}`] }));
    await a.store.createEntities(entities);
    await a.store.createRelations(entities.slice(1).map((e, i) => ({ from: e.name, to: `city ${i}`, relationType: 'after' })));
  });
  afterAll(async () => {
    for (const r of [a, b, plain, elsewhere]) await r?.http[Symbol.asyncDispose]();
  });

  it('server/discover lists the extension (a server without tasks does not)', async () => {
    const { result } = await rpc(a.http.endpoint, 'server/discover');
    expect((result?.capabilities as { extensions?: object } | undefined)?.extensions).toHaveProperty([TASKS]);
    const { result: without } = await rpc(plain.http.endpoint, 'server/discover');
    expect((without?.capabilities as { extensions?: object } | undefined)?.extensions ?? {}).not.toHaveProperty([TASKS]);
  });

  it.each([
    ['read_graph', {}],
    ['search_nodes', { query: 'city', limit: 25 }],
  ])('answers an opted-in %s with a CreateTaskResult; tasks/get completes with the inline answer', async (name, args) => {
    const call = { name, arguments: args };
    const { result: created, error } = await rpc(a.http.endpoint, 'tools/call', call);
    expect(error).toBeUndefined();
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: HOUR });
    const done = await settled(a.http.endpoint, created?.taskId as string);
    const inline = await rpc(a.http.endpoint, 'tools/call', call, { optIn: false });
    expect(done.status).toBe('completed');
    expect(done.result).toEqual(toolResult(inline.result));
    // Byte for byte, keys in the same order (the row keeps the JSON text as it was written).
    expect(JSON.stringify(done.result)).toBe(JSON.stringify(toolResult(inline.result)));
    expect((inline.result?.structuredContent as { entities: unknown[] } | undefined)?.entities.length).toBeGreaterThanOrEqual(25);
  });

  it('answers tasks/get on the other replica for a task one replica started (one database, the same caller); another graph’s server does not know it', async () => {
    const { result: created } = await rpc(a.http.endpoint, 'tools/call', { name: 'read_graph', arguments: { namesOnly: true } });
    const taskId = created?.taskId as string;
    // At once: the row is committed before the CreateTaskResult is sent.
    expect((await rpc(b.http.endpoint, 'tasks/get', { taskId })).result?.taskId).toBe(taskId);
    const done = await settled(b.http.endpoint, taskId);
    const inline = await rpc(b.http.endpoint, 'tools/call', { name: 'read_graph', arguments: { namesOnly: true } }, { optIn: false });
    expect(done.result).toEqual(toolResult(inline.result));
    expect((await rpc(elsewhere.http.endpoint, 'tasks/get', { taskId })).error?.code).toBe(-32602);
  });

  it('answers a call that does not opt in, and any call of another tool, exactly as a server without tasks', async () => {
    const calls = [
      { name: 'read_graph', arguments: {} },
      { name: 'read_graph', arguments: { limit: 7 } },
      { name: 'search_nodes', arguments: { query: 'number 4' } },
      { name: 'search_nodes', arguments: { query: 'x', cursor: 'not-a-cursor' } },
      { name: 'open_nodes', arguments: { names: ['city 3', 'nowhere'] } },
      { name: 'add_observations', arguments: { observations: [{ entityName: 'nowhere', contents: ['x'] }] } },
      { name: 'create_entities', arguments: { entities: [{ name: 'bad' }] } },
      { name: 'no_such_tool', arguments: {} },
    ];
    for (const call of calls) {
      const ours = await rpc(a.http.endpoint, 'tools/call', call, { optIn: false });
      const theirs = await rpc(plain.http.endpoint, 'tools/call', call, { optIn: false });
      expect(ours, call.name).toEqual(theirs);
      expect(ours.result?.resultType, call.name).not.toBe('task');
    }
    // The other tools never run as tasks: an opted-in call of one is answered as without tasks too.
    for (const call of calls.filter((c) => c.name !== 'read_graph' && c.name !== 'search_nodes')) {
      expect(await rpc(a.http.endpoint, 'tools/call', call), call.name).toEqual(await rpc(plain.http.endpoint, 'tools/call', call));
    }
    expect((await rpc(a.http.endpoint, 'tools/list', {}, { optIn: false })).result).toEqual(
      (await rpc(plain.http.endpoint, 'tools/list', {}, { optIn: false })).result,
    );
  });

  it('forgets a task an hour after its creation, on both replicas (the driven clock)', async () => {
    const { result: created } = await rpc(a.http.endpoint, 'tools/call', { name: 'search_nodes', arguments: { query: 'city 1' } });
    const taskId = created?.taskId as string;
    await settled(a.http.endpoint, taskId);
    clock.now += HOUR - 1;
    expect((await rpc(b.http.endpoint, 'tasks/get', { taskId })).result?.status).toBe('completed');
    clock.now += 1;
    expect((await rpc(b.http.endpoint, 'tasks/get', { taskId })).error?.code).toBe(-32602);
    expect((await rpc(a.http.endpoint, 'tasks/get', { taskId })).error?.code).toBe(-32602);
  });

  it('starts with the database down: an opted-in read_graph answers the inline error, no task; once it is back, a task', async () => {
    const target = new URL(url!);
    await using relay = await startRelay({ host: target.hostname, port: Number(target.port) });
    await relay.down();
    const viaRelay = new URL(url!);
    viaRelay.port = String(relay.port);
    const down = await replica(freshGraph(), { at: viaRelay.toString() });
    try {
      const { result: failed } = await rpc(down.http.endpoint, 'tools/call', { name: 'read_graph', arguments: {} });
      expect(failed).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/^The memory database failed: /) }],
      });
      expect(failed?.resultType).not.toBe('task');
      await relay.up();
      const { result: created } = await rpc(down.http.endpoint, 'tools/call', { name: 'read_graph', arguments: {} });
      expect(created?.resultType).toBe('task');
      expect(await settled(down.http.endpoint, created?.taskId as string)).toMatchObject({ status: 'completed' });
    } finally {
      await down.http[Symbol.asyncDispose]();
    }
  });
});
