// The built bin over --transport ws (MCP over WebSocket, subprotocol mcp; not an MCP specification transport),
// through the client that speaks it: the v1 SDK's WebSocketClientTransport.
import { fileURLToPath } from 'node:url';
import { spawnWs } from '@mcpkit/protocol-core/testing';
import { expect, it } from 'vitest';
import { gitEnv, gitRepo, text } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

it('serves the tools over WebSocket to the v1 client', async () => {
  using fx = gitRepo();
  await using proc = await spawnWs(bin, { args: ['-r', fx.repo], env: gitEnv() });
  expect(proc.stderr()).toContain(`listening on ${proc.endpoint}`);
  expect((await proc.client.listTools()).tools.map((t) => t.name)).toContain('git_status');
  const status = await proc.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
  expect(text(status)).toBe('Repository status:\nOn branch master\nnothing to commit, working tree clean');
  expect(await proc.stop()).toBe(0);
});
