// The built bin over --transport ws (MCP over WebSocket, subprotocol mcp; not an MCP specification transport),
// through the client that speaks it: the v1 SDK's WebSocketClientTransport.
import { fileURLToPath } from 'node:url';
import { spawnWs } from '@mcpkit/protocol-core/testing';
import { expect, it } from 'vitest';
import { routes, send, startServer, text } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

it('serves the fetch tool over WebSocket to the v1 client', async () => {
  await using site = await startServer(
    routes({
      '/robots.txt': send('User-agent: *\nAllow: /', 'text/plain'),
      '/page': send('<html><body><article><h1>Title</h1><p>Over WebSocket.</p></article></body></html>', 'text/html'),
    }),
  );
  await using proc = await spawnWs(bin, { args: ['--allow-host', `127.0.0.1:${site.port}`] });
  expect(proc.stderr()).toContain(`listening on ${proc.endpoint}`);
  expect((await proc.client.listTools()).tools.map((t) => t.name)).toEqual(['fetch']);
  const page = await proc.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/page` } });
  expect(text(page)).toBe(`Contents of ${site.origin}/page:\n## Title\n\nOver WebSocket.`);
  expect(await proc.stop()).toBe(0);
});
