import { connectInMemory, invalidArgumentsResult } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { create$PASCAL$Server } from '../src/server.js';

type Content = { type: string; text: string }[];

/** A real SDK client (v2, in a 2025-11-25 session) against a fresh server: every test gets its own state. */
async function connect(options: Parameters<typeof create$PASCAL$Server>[0] = {}) {
  return connectInMemory(create$PASCAL$Server(options));
}

describe('tools/list', () => {
  it('advertises echo with its title, schemas and honest annotations', async () => {
    await using pair = await connect();
    const { tools } = await pair.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo']);
    const tool = tools[0]!;
    expect(tool.title).toBe('Echo');
    expect(tool.inputSchema.required).toEqual(['message']);
    expect(tool.outputSchema).toMatchObject({ type: 'object', required: ['text', 'characters'] });
    expect(tool.annotations).toEqual({
      title: 'Echo',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });
});

describe('echo', () => {
  it('returns the message as text and as structuredContent', async () => {
    await using pair = await connect();
    const res = await pair.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    expect(res.isError).toBeFalsy();
    expect(res.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(res.structuredContent).toEqual({ text: 'hello', characters: 5 });
  });

  it('repeats the message `times` times', async () => {
    await using pair = await connect();
    const res = await pair.client.callTool({ name: 'echo', arguments: { message: 'ab', times: 3 } });
    expect(res.structuredContent).toEqual({ text: 'ab ab ab', characters: 8 });
  });

  it('refuses a message over the configured limit with a ToolError naming both lengths', async () => {
    await using pair = await connect({ maxMessageLength: 5 });
    const res = await pair.client.callTool({ name: 'echo', arguments: { message: 'too long' } });
    expect(res.isError).toBe(true);
    expect((res.content as Content)[0]!.text).toBe('message is 8 characters long; this server accepts at most 5');
  });

  it('reports invalid arguments as an isError result naming the field', async () => {
    await using pair = await connect();
    const res = await pair.client.callTool({ name: 'echo', arguments: { message: 'x', times: 0 } });
    expect(res).toEqual(invalidArgumentsResult('echo', 'times: Too small: expected number to be >=1'));
  });
});
