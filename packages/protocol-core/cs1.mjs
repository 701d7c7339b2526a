import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const s = new McpServer({ name: 'x', version: '1' });
s.registerTool('a', { inputSchema: { a: z.string() } }, async () => ({ content: [] }));
await s.connect(new StdioServerTransport());
