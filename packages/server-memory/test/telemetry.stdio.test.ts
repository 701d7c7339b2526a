/** Store latency in telemetry: the built bin, with OTEL_* pointing at a real OTLP/HTTP receiver on loopback. */
import { fileURLToPath } from 'node:url';
import { freePort, otlpAttributes, otlpEnv, spawnStdio, startOtlpReceiver } from '@mcpkit/protocol-core/testing';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from './helpers.js';
import { freshGraph, postgresUrl } from './postgres/fixture.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

async function until(check: () => boolean, ms = 10_000) {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error('timed out');
    },
    { timeout: ms, interval: 20 },
  );
}

describe('mcpkit.store.operation.duration (built bin)', () => {
  it('times the file store operations a tool call makes', async () => {
    using dir = tempDir();
    await using receiver = await startOtlpReceiver();
    {
      await using proc = await spawnStdio(bin, { env: { ...otlpEnv(receiver), MEMORY_FILE_PATH: `${dir.path}/m.jsonl` } });
      await proc.client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'A', entityType: 't', observations: [] }] } });
      await proc.client.callTool({ name: 'read_graph', arguments: {} });
    }
    await until(() => receiver.metrics().has('mcpkit.store.operation.duration'));
    const points = receiver
      .metrics()
      .get('mcpkit.store.operation.duration')!
      .map((p) => ({ ...otlpAttributes(p), count: Number(p.count) }));
    expect(points).toEqual(
      expect.arrayContaining([
        { 'mcpkit.store': 'file', 'mcpkit.store.operation': 'createEntities', count: 1 },
        { 'mcpkit.store': 'file', 'mcpkit.store.operation': 'readGraph', count: 1 },
      ]),
    );
    const [call] = receiver.spans().filter((s) => s.name === 'tools/call create_entities');
    expect(otlpAttributes(call!)).toMatchObject({ 'gen_ai.tool.name': 'create_entities', 'mcp.method.name': 'tools/call' });
  });

  it.skipIf(!postgresUrl())('times PostgreSQL operations on a real database', async () => {
    await using receiver = await startOtlpReceiver();
    const env = { ...otlpEnv(receiver), MEMORY_STORAGE: 'postgres', MEMORY_DATABASE_URL: postgresUrl()!, MEMORY_GRAPH: freshGraph() };
    {
      await using proc = await spawnStdio(bin, { env });
      const res = await proc.client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'P', entityType: 't', observations: [] }] },
      });
      expect(res.isError).toBeFalsy();
    }
    await until(() => receiver.metrics().has('mcpkit.store.operation.duration'));
    const points = receiver
      .metrics()
      .get('mcpkit.store.operation.duration')!
      .map((p) => ({ ...otlpAttributes(p), count: Number(p.count) }));
    expect(points).toContainEqual({ 'mcpkit.store': 'postgres', 'mcpkit.store.operation': 'createEntities', count: 1 });
  });

  it('times PostgreSQL operations, a failed one (database down) with its error type', async () => {
    await using receiver = await startOtlpReceiver();
    const url = `postgres://memory:x@127.0.0.1:${await freePort()}/memory?sslmode=disable`;
    {
      await using proc = await spawnStdio(bin, { env: { ...otlpEnv(receiver), MEMORY_STORAGE: 'postgres', MEMORY_DATABASE_URL: url } });
      const res = await proc.client.callTool({ name: 'read_graph', arguments: {} });
      expect(res.isError).toBe(true);
    }
    await until(() => receiver.metrics().has('mcpkit.store.operation.duration'));
    const [point] = receiver.metrics().get('mcpkit.store.operation.duration')!;
    expect(otlpAttributes(point!)).toMatchObject({ 'mcpkit.store': 'postgres', 'mcpkit.store.operation': 'readGraph' });
    expect(otlpAttributes(point!)['error.type']).toBeTypeOf('string');
  });
});
