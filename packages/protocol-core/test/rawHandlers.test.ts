import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { setRawRequestHandler } from '../src/index.js';
import { connectInMemory } from '../src/testing/index.js';

function server() {
  const mcp = new McpServer({ name: 'raw', version: '0' });
  mcp.server.registerCapabilities({ tools: {}, resources: {} });
  return mcp;
}

const looseResult = z.looseObject({});

describe('setRawRequestHandler', () => {
  it('sends a tools/call result as returned (the SDK Server would strip an embedded resource’s name)', async () => {
    const mcp = server();
    const resource = { uri: 'test://1', name: 'One', mimeType: 'text/plain', text: 'one' };
    setRawRequestHandler(mcp, ListToolsRequestSchema, () => ({ tools: [] }));
    setRawRequestHandler(mcp, CallToolRequestSchema, (request) => ({
      content: [{ type: 'resource', resource: { ...resource, uri: `test://${request.params.name}` } }],
    }));
    await using pair = await connectInMemory(mcp);
    const result = await pair.client.request({ method: 'tools/call', params: { name: 'x', arguments: {} } }, looseResult);
    expect(result).toEqual({ content: [{ type: 'resource', resource: { ...resource, uri: 'test://x' } }] });
  });

  it('answers a request that does not match the schema with -32602 and a readable message', async () => {
    const mcp = server();
    setRawRequestHandler(mcp, ReadResourceRequestSchema, (request) => ({ contents: [{ uri: request.params.uri, text: '' }] }));
    await using pair = await connectInMemory(mcp);
    await expect(pair.client.request({ method: 'resources/read', params: { uri: 5 } } as never, looseResult)).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Invalid resources/read request: Invalid input: expected string, received number at params.uri',
    });
    expect(await pair.client.readResource({ uri: 'test://ok' })).toEqual({ contents: [{ uri: 'test://ok', text: '' }] });
  });

  it('still refuses a handler for a capability the server did not declare', () => {
    const mcp = new McpServer({ name: 'raw', version: '0' });
    expect(() => setRawRequestHandler(mcp, ListToolsRequestSchema, () => ({ tools: [] }))).toThrow(/tools/);
  });
});
