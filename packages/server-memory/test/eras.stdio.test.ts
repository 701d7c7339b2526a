/**
 * Both protocol eras from the built bin: the v2 client in each negotiation mode (`legacy` → 2025-11-25,
 * `auto` and pinned `2026-07-28` → 2026-07-28) over stdio and Streamable HTTP (sessionful and
 * `--stateless`) lists the tools, writes and reads back; a 2026 client that listens on the graph hears a
 * write; the v1 SDK client (the 2025 client of today's hosts) still works over HTTP with a session.
 */
import { fileURLToPath } from 'node:url';
import { connectHttpV2, spawnStdio, V2_MODES, type V2Mode } from '@mcpkit/protocol-core/testing';
import type { Client as V2Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { KNOWLEDGE_GRAPH_URI } from '../src/server.js';
import { tempDir } from './helpers.js';
import { startReplica } from './postgres/replicas.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const era = (mode: V2Mode) => (mode === 'legacy' ? 'legacy' : 'modern');

/** Lists the tools, creates an entity and reads the graph back: the round trip every mode must make. */
async function listWriteRead(client: V2Client, name: string) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('create_entities');
  const created = await client.callTool({
    name: 'create_entities',
    arguments: { entities: [{ name, entityType: 'person', observations: ['x'] }] },
  });
  expect(created.isError).toBeFalsy();
  expect(created.structuredContent).toEqual({ entities: [{ name, entityType: 'person', observations: ['x'] }] });
  const graph = await client.callTool({ name: 'read_graph', arguments: {} });
  expect((graph.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toContain(name);
}

/** Opens a listen stream on the graph, writes `name`, and expects to hear the update on that stream. */
async function hearsWrite(client: V2Client, name: string) {
  const heard: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
  const sub = await client.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
  expect(sub.honoredFilter).toEqual({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
  await client.callTool({ name: 'create_entities', arguments: { entities: [{ name, entityType: 'person', observations: [] }] } });
  await expect.poll(() => heard, { timeout: 5000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
  await sub.close();
}

/** The bin's compaction delay (`compactDelayMs`' default): a write's journal is folded into the file this long after it. */
const COMPACT_DELAY_MS = 2000;

describe('stdio (built bin), v2 client', () => {
  for (const mode of V2_MODES) {
    it(`${mode}: lists and calls tools (${era(mode)} era)`, async () => {
      using dir = tempDir();
      await using proc = await spawnStdio(bin, { mode, args: ['--memory-path', 'memory.jsonl'], cwd: dir.path });
      expect(proc.client.getProtocolEra()).toBe(era(mode));
      await listWriteRead(proc.client, `stdio-${mode}`);
    });
  }

  it('2026-07-28: a listener hears a write of its own process and of another on the same file; a 2025 session keeps resources/subscribe', async () => {
    using dir = tempDir();
    await using modern = await spawnStdio(bin, { mode: '2026-07-28', args: ['--memory-path', 'memory.jsonl'], cwd: dir.path });
    await hearsWrite(modern.client, 'Listened');

    // A write by another process on the same file: the 2026 connection watches the file for its whole life.
    await using other = await spawnStdio(bin, { mode: 'legacy', args: ['--memory-path', 'memory.jsonl'], cwd: dir.path });
    const heard: string[] = [];
    modern.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const sub = await modern.client.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
    // Kept: the must-not is "its own write's fold is not heard as another process's", and the fold comes on a timer.
    await new Promise((resolve) => setTimeout(resolve, COMPACT_DELAY_MS * 1.25));
    expect(heard).toEqual([]);
    await other.client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Elsewhere', entityType: 't', observations: [] }] },
    });
    await expect.poll(() => heard, { timeout: 10_000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
    await sub.close();

    await using legacy = await spawnStdio(bin, { mode: 'legacy', args: ['--memory-path', 'other.jsonl'], cwd: dir.path });
    const legacyHeard: string[] = [];
    legacy.client.setNotificationHandler('notifications/resources/updated', (n) => void legacyHeard.push(n.params.uri));
    await legacy.client.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI });
    await legacy.client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Sub', entityType: 't', observations: [] }] },
    });
    await expect.poll(() => legacyHeard, { timeout: 5000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
  });
});

describe.each([
  ['sessionful', []],
  ['--stateless', ['--stateless']],
])('Streamable HTTP (built bin, %s)', (_label, flags) => {
  for (const mode of V2_MODES) {
    it(`${mode}: lists and calls tools (${era(mode)} era)`, async () => {
      using dir = tempDir();
      await using server = await startReplica(bin, [...flags, '--memory-path', `${dir.path}/memory.jsonl`], {});
      await using conn = await connectHttpV2(server.endpoint, { mode });
      expect(conn.client.getProtocolEra()).toBe(era(mode));
      await listWriteRead(conn.client, `http-${mode}`);
    });
  }

  it('2026-07-28: a listener hears a write made by another client of the process', async () => {
    using dir = tempDir();
    await using server = await startReplica(bin, [...flags, '--memory-path', `${dir.path}/memory.jsonl`], {});
    await using listener = await connectHttpV2(server.endpoint, { mode: '2026-07-28' });
    await using writer = await connectHttpV2(server.endpoint, { mode: '2026-07-28' });
    const heard: string[] = [];
    listener.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const sub = await listener.client.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
    await writer.client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Other', entityType: 't', observations: [] }] },
    });
    await expect.poll(() => heard, { timeout: 5000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
    await sub.close();
    await hearsWrite(listener.client, 'Self');
  });
});

describe('Streamable HTTP (built bin), v1 SDK client', () => {
  it('initializes a session, lists and calls tools', async () => {
    using dir = tempDir();
    await using server = await startReplica(bin, ['--memory-path', `${dir.path}/memory.jsonl`], {});
    const client = new V1Client({ name: 'v1', version: '0' });
    const transport = new V1HttpTransport(new URL(server.endpoint));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeDefined();
      expect((await client.listTools()).tools).toHaveLength(9);
      const res = await client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'V1', entityType: 't', observations: [] }] },
      });
      expect(res.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
