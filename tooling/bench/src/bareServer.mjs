#!/usr/bin/env node
/**
 * A bare SDK server with one `echo` tool on the SDK's own stdio transport, no mcpkit code: what the SDK
 * alone costs per call and at start-up, to set beside a built mcpkit bin (issue 18's profiles).
 *
 *   node tooling/bench/src/bareServer.mjs v2   # @modelcontextprotocol/server 2.x, serveStdio (both eras)
 *   node tooling/bench/src/bareServer.mjs v1   # @modelcontextprotocol/sdk 1.x, StdioServerTransport (2025 only)
 *
 * v2 is resolved from packages/protocol-core (its devDependency), v1 from this package. Unbundled, so its
 * start-up includes module resolution that a built bin does not pay; compare per-call figures with it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const message = (text) => ({ content: [{ type: 'text', text: `Echo: ${text}` }] });

if (process.argv[2] === 'v1') {
  const require = createRequire(join(benchDir, 'package.json'));
  const mcp = require.resolve('@modelcontextprotocol/sdk/server/mcp.js');
  const { McpServer } = await import(mcp);
  const { StdioServerTransport } = await import(require.resolve('@modelcontextprotocol/sdk/server/stdio.js'));
  const { z } = await import(createRequire(mcp).resolve('zod'));
  const server = new McpServer({ name: 'bare-v1', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes back the input', inputSchema: { message: z.string() } }, async ({ message: m }) =>
    message(m),
  );
  await server.connect(new StdioServerTransport());
} else {
  const require = createRequire(join(benchDir, '../../packages/protocol-core/package.json'));
  const { McpServer } = await import(require.resolve('@modelcontextprotocol/server'));
  const { serveStdio } = await import(require.resolve('@modelcontextprotocol/server/stdio'));
  const { z } = await import(require.resolve('zod'));
  serveStdio(() => {
    const server = new McpServer({ name: 'bare-v2', version: '2.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echoes back the input', inputSchema: z.object({ message: z.string() }) },
      async ({ message: m }) => message(m),
    );
    return server;
  });
}
