import { CallToolRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/core';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { setRawRequestHandler } from '../src/lowLevel.js';
import { connectInMemory } from '../src/testing/index.js';

function server() {
  const mcp = new McpServer({ name: 'raw', version: '0' });
  mcp.server.registerCapabilities({ tools: {}, resources: {} });
  return mcp;
}

const looseResult = z.looseObject({});

describe('setRawRequestHandler', () => {
  it('sends a tools/call result as the SDK v2 encodes it: fields the spec names, an embedded resource’s extra name dropped', async () => {
    const mcp = server();
    const resource = { uri: 'test://1', name: 'One', mimeType: 'text/plain', text: 'one' };
    setRawRequestHandler(mcp, ListToolsRequestSchema, () => ({ tools: [] }));
    setRawRequestHandler(mcp, CallToolRequestSchema, (request) => ({
      content: [{ type: 'resource', resource: { ...resource, uri: `test://${request.params.name}` } }],
    }));
    await using pair = await connectInMemory(mcp);
    const result = await pair.client.request({ method: 'tools/call', params: { name: 'x', arguments: {} } }, looseResult);
    expect(result).toEqual({ content: [{ type: 'resource', resource: { uri: 'test://x', mimeType: 'text/plain', text: 'one' } }] });
  });

  it('answers a request the SDK passes but the handler’s schema refuses with -32602 and a one-line message', async () => {
    const mcp = server();
    const strict = ReadResourceRequestSchema.extend({ params: z.object({ uri: z.string().startsWith('test://') }) });
    setRawRequestHandler(mcp, strict as unknown as typeof ReadResourceRequestSchema, (request) => ({
      contents: [{ uri: request.params.uri, text: '' }],
    }));
    await using pair = await connectInMemory(mcp);
    await expect(pair.client.request({ method: 'resources/read', params: { uri: 'other://1' } }, looseResult)).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid resources/read request: Invalid string: must start with "test://" at params.uri',
    });
    expect(await pair.client.readResource({ uri: 'test://ok' })).toMatchObject({ contents: [{ uri: 'test://ok', text: '' }] });
  });

  it('still refuses a handler for a capability the server did not declare', () => {
    const mcp = new McpServer({ name: 'raw', version: '0' });
    expect(() => setRawRequestHandler(mcp, ListToolsRequestSchema, () => ({ tools: [] }))).toThrow(/tools/);
  });
});
