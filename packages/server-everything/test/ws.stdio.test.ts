// The built bin over --transport ws (MCP over WebSocket, subprotocol mcp; not an MCP specification transport),
// through the client that speaks it: the v1 SDK's WebSocketClientTransport.
import { fileURLToPath } from 'node:url';
import { spawnWs } from '@mcpkit/protocol-core/testing';
import { expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

it('serves the tools over WebSocket to the v1 client', async () => {
  await using proc = await spawnWs(bin);
  expect(proc.stderr()).toContain(`listening on ${proc.endpoint}`);
  expect(proc.client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
  expect((await proc.client.listTools()).tools.map((t) => t.name)).toContain('echo');
  const echo = await proc.client.callTool({ name: 'echo', arguments: { message: 'over ws' } });
  expect(echo.content).toEqual([{ type: 'text', text: 'Echo: over ws' }]);
  expect(await proc.stop()).toBe(0);
});
