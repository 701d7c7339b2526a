import { connectInMemory } from '@mcpkit/protocol-core/testing';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';
import { failure, quiet } from './helpers.js';

function texts(result: unknown): string[] {
  return ((result as { content: unknown }).content as { text: string }[]).map((block) => block.text);
}

describe('sampleLLM round trips (server → client sampling/createMessage)', () => {
  it('sends the reference request and returns the reply text', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet), { capabilities: { sampling: {} } });
    const requests: unknown[] = [];
    pair.client.setRequestHandler('sampling/createMessage', (request) => {
      requests.push(request.params);
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `echo(${request.params.maxTokens})` } };
    });
    const result = await pair.client.callTool({ name: 'sampleLLM', arguments: { prompt: 'What is MCP?' } });
    expect(texts(result)).toEqual(['LLM sampling result: echo(100)']);
    expect(requests).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Resource sampleLLM context: What is MCP?' } }],
        systemPrompt: 'You are a helpful test server.',
        maxTokens: 100,
        temperature: 0.7,
        includeContext: 'thisServer',
      },
    ]);
    expect(texts(await pair.client.callTool({ name: 'sampleLLM', arguments: { prompt: 'x', maxTokens: 7 } }))).toEqual([
      'LLM sampling result: echo(7)',
    ]);
  });

  it('prints a non-text reply as JSON (npm 2025.11.25 printed "undefined")', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet), { capabilities: { sampling: {} } });
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    pair.client.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', model: 'm', content: image }));
    expect(texts(await pair.client.callTool({ name: 'sampleLLM', arguments: { prompt: 'draw' } }))).toEqual([
      `LLM sampling result: ${JSON.stringify(image)}`,
    ]);
  });

  it('a client without sampling gets a clear error, no request; a client that refuses passes its error on', async () => {
    await using without = await connectInMemory(createLegacyServer(quiet));
    expect(await failure(without.client.callTool({ name: 'sampleLLM', arguments: { prompt: 'x' } }))).toEqual({
      code: -32603,
      message: 'sampleLLM needs a client that supports sampling; this client did not declare the sampling capability',
    });

    await using refusing = await connectInMemory(createLegacyServer(quiet), { capabilities: { sampling: {} } });
    // On the wire: {"code":-1,"message":"User rejected sampling request"}; the server passes it on unchanged.
    refusing.client.setRequestHandler('sampling/createMessage', () => {
      throw Object.assign(new Error('User rejected sampling request'), { code: -1 });
    });
    expect(await failure(refusing.client.callTool({ name: 'sampleLLM', arguments: { prompt: 'x' } }))).toEqual({
      code: -1,
      message: 'User rejected sampling request',
    });
    expect((await failure(refusing.client.callTool({ name: 'sampleLLM', arguments: {} }))).message).toContain(
      'expected string, received undefined at prompt',
    );
  });
});

describe('startElicitation round trips (server → client elicitation/create)', () => {
  async function elicit(answer: ElicitResult) {
    const pair = await connectInMemory(createLegacyServer(quiet), { capabilities: { elicitation: {} } });
    const requests: unknown[] = [];
    pair.client.setRequestHandler('elicitation/create', (request) => {
      requests.push(request.params);
      return answer;
    });
    const result = await pair.client.callTool({ name: 'startElicitation', arguments: {} });
    await pair[Symbol.asyncDispose]();
    return { texts: texts(result), requests };
  }

  it('accept: lists the inputs given, in the reference order, then the raw result', async () => {
    const answer = { action: 'accept' as const, content: { name: 'Ann', check: false, color: 'red', petType: 'cats', number: 3.5 } };
    const { texts: out, requests } = await elicit(answer);
    expect(out).toEqual([
      '✅ User provided the requested information!',
      'User inputs:\n- Name: Ann\n- Agreed to terms: false\n- Favorite Color: red\n- Favorite Number: 3.5\n- Pet Type: cats',
      `\nRaw result: ${JSON.stringify(answer, null, 2)}`,
    ]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      message: 'Please provide inputs for the following fields:',
      requestedSchema: { type: 'object', required: ['name'] },
    });
  });

  it('accept with every field', async () => {
    const content = {
      name: 'Bo',
      check: true,
      color: 'blue',
      email: 'bo@example.com',
      homepage: 'https://bo.example',
      birthdate: '1990-01-15',
      integer: 42,
      number: 0,
      petType: 'dogs',
    };
    const { texts: out } = await elicit({ action: 'accept', content });
    expect(out[1]).toBe(
      'User inputs:\n- Name: Bo\n- Agreed to terms: true\n- Favorite Color: blue\n- Email: bo@example.com\n- Homepage: https://bo.example\n' +
        '- Birthdate: 1990-01-15\n- Favorite Integer: 42\n- Favorite Number: 0\n- Pet Type: dogs',
    );
  });

  it('decline and cancel', async () => {
    expect((await elicit({ action: 'decline' })).texts).toEqual([
      '❌ User declined to provide the requested information.',
      `\nRaw result: ${JSON.stringify({ action: 'decline' }, null, 2)}`,
    ]);
    expect((await elicit({ action: 'cancel' })).texts).toEqual([
      '⚠️ User cancelled the elicitation dialog.',
      `\nRaw result: ${JSON.stringify({ action: 'cancel' }, null, 2)}`,
    ]);
  });

  it('accept without content prints only the raw result', async () => {
    expect((await elicit({ action: 'accept' })).texts).toEqual([`\nRaw result: ${JSON.stringify({ action: 'accept' }, null, 2)}`]);
  });

  it('is listed only for clients with elicitation; without it, a call is a clear error and nothing is sent', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    expect((await pair.client.listTools()).tools.map((t) => t.name)).not.toContain('startElicitation');
    expect(await failure(pair.client.callTool({ name: 'startElicitation', arguments: {} }))).toEqual({
      code: -32603,
      message: 'startElicitation needs a client that supports elicitation; this client did not declare the elicitation capability',
    });
    await using withIt = await connectInMemory(createLegacyServer(quiet), { capabilities: { elicitation: {} } });
    expect((await withIt.client.listTools()).tools.map((t) => t.name).at(-1)).toBe('startElicitation');
  });
});
