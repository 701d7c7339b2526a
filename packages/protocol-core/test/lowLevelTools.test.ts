import { CreateMessageResultSchema } from '@modelcontextprotocol/core';
import type { CreateMessageRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnyToolDefinition, createMcpServer, defineTool, registerTools } from '../src/define.js';
import { ToolError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { MAX_RESULT_BYTES } from '../src/size.js';
import { connectInMemory } from '../src/testing/index.js';

const HINTS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const looseResult = z.looseObject({});

/** As a reference's `zodToJsonSchema` wrote it: `$schema` last. */
const ECHO_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string', description: 'Message to echo' } },
  required: ['message'],
  additionalProperties: false,
  $schema: 'http://json-schema.org/draft-07/schema#',
};

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes back the input',
  input: { message: z.string(), times: z.number().default(1) },
  listing: { inputSchema: ECHO_SCHEMA },
  annotations: HINTS,
  handler: ({ message, times }) => ({ content: [{ type: 'text', text: `Echo: ${message.repeat(times)}` }] }),
});

const embed = defineTool({
  name: 'embed',
  title: 'Embed',
  description: 'Embeds a resource with its name',
  input: {},
  annotations: HINTS,
  handler: () => ({ content: [{ type: 'resource', resource: { uri: 'test://1', name: 'One', mimeType: 'text/plain', text: 'one' } }] }),
});

const rooted = defineTool({
  name: 'rooted',
  title: 'Rooted',
  description: 'Only for clients with roots',
  input: {},
  listing: { listedFor: 'roots' },
  annotations: HINTS,
  handler: () => ({ content: [{ type: 'text', text: 'called' }] }),
});

const fail = defineTool({
  name: 'fail',
  title: 'Fail',
  description: 'Fails as asked',
  input: { how: z.enum(['tool', 'crash', 'sample', 'big']) },
  annotations: HINTS,
  async handler({ how }, _ctx, extra) {
    if (how === 'tool') throw new ToolError('the widget is missing');
    if (how === 'crash') throw new Error('secret internal path /etc/shadow');
    if (how === 'big') return { content: [{ type: 'text', text: 'x'.repeat(MAX_RESULT_BYTES) }] };
    const request: CreateMessageRequest = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
    await extra.mcpReq.send(request, CreateMessageResultSchema);
    return { content: [] };
  },
});

function lowLevelServer(tools: ReadonlyArray<AnyToolDefinition<unknown>>, lines: string[] = []) {
  const logger = createLogger({ name: 't', level: 'debug', write: (line) => void lines.push(line) });
  const server = createMcpServer({ name: 'low', version: '1.0.0' });
  registerTools(server, undefined, tools, { logger, wire: 'low-level' });
  return server;
}

describe("registerTools(…, { wire: 'low-level' })", () => {
  it('lists each tool with its listing schema exactly as written, the SDK rendering otherwise, and no execution', async () => {
    await using pair = await connectInMemory(lowLevelServer([echo, embed]));
    const { tools } = await pair.client.request({ method: 'tools/list' }, z.object({ tools: z.array(z.looseObject({})) }));
    expect(JSON.stringify(tools[0])).toBe(
      JSON.stringify({
        name: 'echo',
        title: 'Echo',
        description: 'Echoes back the input',
        inputSchema: ECHO_SCHEMA,
        annotations: { title: 'Echo', ...HINTS },
      }),
    );
    expect(tools[1]).toEqual({
      name: 'embed',
      title: 'Embed',
      description: 'Embeds a resource with its name',
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} },
      annotations: { title: 'Embed', ...HINTS },
    });
    expect(pair.client.getServerCapabilities()?.tools).toEqual({});
  });

  it('lists a tool with listedFor only to clients that declared the capability; others can still call it', async () => {
    {
      await using pair = await connectInMemory(lowLevelServer([echo, rooted]));
      expect((await pair.client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
      expect(await pair.client.callTool({ name: 'rooted' })).toEqual({ content: [{ type: 'text', text: 'called' }] });
    }
    await using pair = await connectInMemory(lowLevelServer([echo, rooted]), { capabilities: { roots: {} } });
    expect((await pair.client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'rooted']);
  });

  it('sends a result as the SDK v2 encodes it (an embedded resource loses its extra name) and takes omitted arguments as {}', async () => {
    await using pair = await connectInMemory(lowLevelServer([echo, embed]));
    // v1 sent the handler's result untouched; v2's Server validates every tools/call result with the era's
    // CallToolResult schema and sends what that schema names (no public way around it; see rawHandlers.ts).
    expect(await pair.client.request({ method: 'tools/call', params: { name: 'embed' } }, looseResult)).toEqual({
      content: [{ type: 'resource', resource: { uri: 'test://1', mimeType: 'text/plain', text: 'one' } }],
    });
    expect(await pair.client.callTool({ name: 'echo', arguments: { message: 'ab', times: 2, extra: true } })).toEqual({
      content: [{ type: 'text', text: 'Echo: abab' }],
    });
  });

  it('answers every failure with a JSON-RPC error: unknown tool, invalid arguments (one line per problem), ToolError', async () => {
    await using pair = await connectInMemory(lowLevelServer([echo, fail]));
    await expect(pair.client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32603,
      message: 'Unknown tool: nope',
    });
    await expect(pair.client.callTool({ name: 'echo', arguments: { times: 'x' } })).rejects.toMatchObject({
      code: -32603,
      message:
        'Input validation error: Invalid arguments for tool echo: Invalid input: expected string, received undefined at message\n' +
        'Invalid input: expected number, received string at times',
    });
    await expect(pair.client.callTool({ name: 'fail', arguments: { how: 'tool' } })).rejects.toMatchObject({
      code: -32603,
      message: 'the widget is missing',
    });
  });

  it('hides an unexpected failure (logged with its stack) and passes on an error the client answered with, code and text', async () => {
    const lines: string[] = [];
    const server = lowLevelServer([fail], lines);
    await using pair = await connectInMemory(server, { capabilities: { sampling: {} } });
    pair.client.setRequestHandler('sampling/createMessage', () => {
      throw Object.assign(new Error('User rejected sampling request'), { code: -32600 });
    });
    await expect(pair.client.callTool({ name: 'fail', arguments: { how: 'crash' } })).rejects.toMatchObject({
      code: -32603,
      message: 'Tool fail failed unexpectedly; the server log has the details.',
    });
    expect(lines.join('')).toContain('secret internal path /etc/shadow');
    await expect(pair.client.callTool({ name: 'fail', arguments: { how: 'sample' } })).rejects.toMatchObject({
      code: -32600,
      message: 'User rejected sampling request',
    });
  });

  it('replaces an answer over MAX_RESULT_BYTES with an isError result, as on the default wire', async () => {
    await using pair = await connectInMemory(lowLevelServer([fail]));
    const result = await pair.client.callTool({ name: 'fail', arguments: { how: 'big' } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^The answer to tool fail is 8\.0 MiB/);
  });

  it('adds tools on a second call, and refuses a name twice or tools the McpServer already answers', () => {
    const server = lowLevelServer([echo]);
    registerTools(server, undefined, [embed], { wire: 'low-level' });
    expect(() => registerTools(server, undefined, [embed], { wire: 'low-level' })).toThrow('Tool embed is already registered');
    const mixed = createMcpServer({ name: 'mixed', version: '1.0.0' });
    registerTools(mixed, undefined, [embed]);
    expect(() => registerTools(mixed, undefined, [rooted], { wire: 'low-level' })).toThrow(/tools\/list/);
  });

  it('refuses a listing on the default wire, which would ignore it', () => {
    expect(() => registerTools(createMcpServer({ name: 'x', version: '1.0.0' }), undefined, [echo])).toThrow(
      "Tool echo: `listing` needs registerTools(…, { wire: 'low-level' })",
    );
  });
});

describe('a zod object as input', () => {
  const strict = defineTool({
    name: 'strict',
    title: 'Strict',
    description: 'Takes only a name',
    input: z.object({ name: z.string().optional() }).strict(),
    annotations: HINTS,
    handler: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  });

  it('is listed and validated as written, on both wires', async () => {
    for (const wire of ['mcp-server', 'low-level'] as const) {
      const server = createMcpServer({ name: 'x', version: '1.0.0' });
      registerTools(server, undefined, [strict], { wire });
      await using pair = await connectInMemory(server);
      expect((await pair.client.listTools()).tools[0]!.inputSchema).toMatchObject({ additionalProperties: false });
      expect(await pair.client.callTool({ name: 'strict', arguments: { name: 'a' } })).toEqual({
        content: [{ type: 'text', text: '{"name":"a"}' }],
      });
      const refused = pair.client.callTool({ name: 'strict', arguments: { other: 1 } });
      if (wire === 'low-level') await expect(refused).rejects.toThrow('Unrecognized key: "other"');
      else expect(await refused).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('Unrecognized key') }] });
    }
  });
});
