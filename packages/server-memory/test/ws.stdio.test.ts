// The built bin over --transport ws (MCP over WebSocket, subprotocol mcp; not an MCP specification transport),
// through the client that speaks it: the v1 SDK's WebSocketClientTransport.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnWs } from '@mcpkit/protocol-core/testing';
import { expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

it('serves the tools over WebSocket to the v1 client', async () => {
  using dir = tempDir();
  await using proc = await spawnWs(bin, { args: ['--memory-path', join(dir.path, 'memory.jsonl')] });
  expect(proc.stderr()).toContain(`listening on ${proc.endpoint}`);
  expect((await proc.client.listTools()).tools.map((t) => t.name)).toContain('create_entities');
  await proc.client.callTool({
    name: 'create_entities',
    arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote over ws'] }] },
  });
  const graph = await proc.client.callTool({ name: 'read_graph', arguments: {} });
  expect(graph.structuredContent).toMatchObject({ entities: [{ name: 'Ada', observations: ['wrote over ws'] }] });
  expect(await proc.stop()).toBe(0);
});
