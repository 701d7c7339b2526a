// The built bin over --transport ws (MCP over WebSocket, subprotocol mcp; not an MCP specification transport),
// through the client that speaks it: the v1 SDK's WebSocketClientTransport. Each connection has its own history.
import { fileURLToPath } from 'node:url';
import { connectWs, spawnWs } from '@mcpkit/protocol-core/testing';
import { expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const args = (n: number) => ({
  name: 'sequentialthinking',
  arguments: { thought: `step ${n}`, thoughtNumber: n, totalThoughts: 3, nextThoughtNeeded: true },
});

it('serves the tool over WebSocket to the v1 client, one history per connection', async () => {
  await using proc = await spawnWs(bin, { env: { DISABLE_THOUGHT_LOGGING: 'true' } });
  expect(proc.stderr()).toContain(`listening on ${proc.endpoint}`);
  expect((await proc.client.listTools()).tools.map((t) => t.name)).toEqual(['sequentialthinking']);
  await proc.client.callTool(args(1));
  expect((await proc.client.callTool(args(2))).structuredContent).toMatchObject({ thoughtHistoryLength: 2 });
  const other = await connectWs(proc.endpoint);
  expect((await other.callTool(args(1))).structuredContent).toMatchObject({ thoughtHistoryLength: 1 });
  await other.close();
  expect(await proc.stop()).toBe(0);
});
