/**
 * The reference's own suite, ported (see ./helpers.ts): upstream `tools.test.ts`, 6.5.37–6.5.61 (the capability-gated
 * tools, the research task, gzip-file-as-resource).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createTestClock } from '../../clock.js';
import { connectCurrent, connectCurrentV1, dataUri, errorText, text, texts } from '../helpers.js';
import { call, toolNames, UUID } from './helpers.js';

describe('tools.test.ts (61)', () => {
  it('6.5.37 trigger-sampling-request is not registered without sampling', async () => {
    // SDK v2: an unknown tool is a JSON-RPC -32602 error (SDK 1.x answered an isError result).
    await expect(call('trigger-sampling-request', { prompt: 'x' })).rejects.toMatchObject({
      code: -32602,
      message: 'Tool trigger-sampling-request not found',
    });
  });
  it('6.5.38 trigger-sampling-request is registered with sampling', async () => {
    await using pair = await connectCurrent({}, { capabilities: { sampling: {} } });
    const tool = (await pair.client.listTools()).tools.find((t) => t.name === 'trigger-sampling-request')!;
    expect(tool.title).toBe('Trigger Sampling Request Tool');
    expect(tool.description).toContain('Sampling');
  });
  it('6.5.39 trigger-sampling-request sends sampling/createMessage', async () => {
    await using pair = await connectCurrent({}, { capabilities: { sampling: {} } });
    const requests: unknown[] = [];
    pair.client.setRequestHandler('sampling/createMessage', (request) => {
      requests.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'test-model' };
    });
    const result = await pair.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Test prompt', maxTokens: 50 } });
    expect(requests).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Resource trigger-sampling-request context: Test prompt' } }],
        systemPrompt: 'You are a helpful test server.',
        maxTokens: 50,
        temperature: 0.7,
      },
    ]);
    expect(text(result)).toBe(
      `LLM sampling result: \n${JSON.stringify({ model: 'test-model', role: 'assistant', content: { type: 'text', text: 'Hi' } }, null, 2)}`,
    );
  });
  it('6.5.40 trigger-elicitation-request is not registered without elicitation', async () => {
    await expect(call('trigger-elicitation-request')).rejects.toMatchObject({
      code: -32602,
      message: 'Tool trigger-elicitation-request not found',
    });
  });
  it('6.5.41 trigger-elicitation-request is registered with elicitation', async () => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: {} } });
    const tool = (await pair.client.listTools()).tools.find((t) => t.name === 'trigger-elicitation-request')!;
    expect(tool.title).toBe('Trigger Elicitation Request Tool');
    expect(tool.description).toContain('Elicitation');
  });
  const elicit = async (answer: Record<string, unknown>) => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: {} } });
    pair.client.setRequestHandler('elicitation/create', () => answer as never);
    return (await pair.client.callTool({ name: 'trigger-elicitation-request', arguments: {} })) as CallToolResult;
  };
  it('6.5.42 trigger-elicitation-request accept', async () => {
    const all = texts(await elicit({ action: 'accept', content: { name: 'John Doe', check: true, email: 'john@example.com' } }));
    expect(all[0]).toBe('✅ User provided the requested information!');
    expect(all[1]).toBe('User inputs:\n- Name: John Doe\n- Agreed to terms: true\n- Email: john@example.com');
  });
  it('6.5.43 trigger-elicitation-request decline', async () => {
    expect(texts(await elicit({ action: 'decline' }))[0]).toBe('❌ User declined to provide the requested information.');
  });
  it('6.5.44 trigger-elicitation-request cancel', async () => {
    expect(texts(await elicit({ action: 'cancel' }))[0]).toBe('⚠️ User cancelled the elicitation dialog.');
  });
  it('6.5.45 trigger-url-elicitation is not registered with form elicitation only', async () => {
    expect(await toolNames({ elicitation: { form: {} } })).not.toContain('trigger-url-elicitation');
  });
  it('6.5.46 trigger-url-elicitation is registered with URL elicitation', async () => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: { url: {} } } });
    const tool = (await pair.client.listTools()).tools.find((t) => t.name === 'trigger-url-elicitation')!;
    expect(tool.title).toBe('Trigger URL Elicitation Tool');
    expect(tool.description).toContain('URL elicitation');
  });
  const urlElicit = async (args: Record<string, unknown>, action: 'accept' | 'decline' | 'cancel') => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: { url: {} } } });
    const requests: Record<string, unknown>[] = [];
    pair.client.setRequestHandler('elicitation/create', (request) => {
      requests.push(request.params);
      return { action };
    });
    const result = (await pair.client.callTool({ name: 'trigger-url-elicitation', arguments: args })) as CallToolResult;
    return { result, requests };
  };
  it('6.5.47 trigger-url-elicitation request path, accept', async () => {
    const args = { url: 'https://example.com/verify', message: 'Open this page to verify your identity', elicitationId: 'elicitation-123' };
    const { result, requests } = await urlElicit({ ...args, errorPath: false }, 'accept');
    expect(requests).toEqual([{ mode: 'url', ...args }]);
    expect(texts(result)[0]).toBe(
      '✅ User completed the URL elicitation flow.\nElicitation ID: elicitation-123\nURL: https://example.com/verify',
    );
    expect(texts(result)[1]).toBe(`\nRaw result: ${JSON.stringify({ action: 'accept' }, null, 2)}`);
  });
  it('6.5.48 trigger-url-elicitation is not registered without capabilities', async () => {
    expect(await toolNames({})).not.toContain('trigger-url-elicitation');
  });
  it('6.5.49 trigger-url-elicitation is not registered when the client declares no elicitation', async () => {
    expect(await toolNames({ sampling: {} })).not.toContain('trigger-url-elicitation');
  });
  it('6.5.50 trigger-url-elicitation generates a UUID elicitationId', async () => {
    const { requests } = await urlElicit({ url: 'https://example.com/verify' }, 'accept');
    expect(requests[0]!.elicitationId).toMatch(UUID);
    expect(requests[0]!.message).toBe('Please open the link to complete this action.');
  });
  it('6.5.51 trigger-url-elicitation decline', async () => {
    const { result } = await urlElicit({ url: 'https://example.com', elicitationId: 'x' }, 'decline');
    expect(texts(result)[0]).toBe('❌ User declined to open the URL (Elicitation ID: x).');
  });
  it('6.5.52 trigger-url-elicitation cancel', async () => {
    const { result } = await urlElicit({ url: 'https://example.com', elicitationId: 'x' }, 'cancel');
    expect(texts(result)[0]).toBe('⚠️ User cancelled the URL elicitation (Elicitation ID: x).');
  });
  it('6.5.53 trigger-url-elicitation error path: -32042 pointing at another URL', async () => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: { url: {} } } });
    const error = await pair.client
      .callTool({
        name: 'trigger-url-elicitation',
        arguments: { url: 'https://example.com/connect', elicitationId: 'elicitation-xyz', errorPath: true },
      })
      .then(
        () => undefined,
        (e: unknown) => e as { code: number; data: { elicitations: Record<string, unknown>[] } },
      );
    expect(error?.code).toBe(-32042);
    expect(error?.data.elicitations[0]).toMatchObject({
      mode: 'url',
      url: 'https://modelcontextprotocol.io',
      elicitationId: expect.any(String),
    });
  });
  it('6.5.54 trigger-url-elicitation retry: the second identical call takes the request path', async () => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: { url: {} } } });
    const requests: unknown[] = [];
    pair.client.setRequestHandler('elicitation/create', (request) => {
      requests.push(request.params);
      return { action: 'accept' };
    });
    const args = { url: 'https://example.com/connect', errorPath: true };
    await expect(pair.client.callTool({ name: 'trigger-url-elicitation', arguments: args })).rejects.toMatchObject({ code: -32042 });
    expect(requests).toEqual([]);
    const result = await pair.client.callTool({ name: 'trigger-url-elicitation', arguments: args });
    expect(requests).toEqual([expect.objectContaining({ mode: 'url', url: 'https://example.com/connect' })]);
    expect(texts(result)[0]).toMatch(/^✅ User completed the URL elicitation flow\./);
  });
  it('6.5.55 get-roots-list is not registered without roots', async () => {
    expect(await toolNames({})).not.toContain('get-roots-list');
  });
  it('6.5.56 get-roots-list is registered with roots', async () => {
    await using pair = await connectCurrent({}, { capabilities: { roots: {} } });
    const tool = (await pair.client.listTools()).tools.find((t) => t.name === 'get-roots-list')!;
    expect(tool.title).toBe('Get Roots List Tool');
    expect(tool.description).toContain('roots');
  });
  it('6.5.57 simulate-research-query, ambiguous: elicits through the task (relatedTask)', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrentV1({ scheduler: clock.scheduler }, { capabilities: { elicitation: {} } });
    const elicitations: { params: Record<string, unknown> }[] = [];
    pair.client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicitations.push(request as never);
      return { action: 'accept', content: { interpretation: 'snake' } };
    });
    let taskId: string | undefined;
    await clock.run(
      (async () => {
        for await (const message of pair.client.experimental.tasks.callToolStream(
          { name: 'simulate-research-query', arguments: { topic: 'python', ambiguous: true } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        )) {
          if (message.type === 'taskCreated') taskId = message.task.taskId;
        }
      })(),
    );
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]!.params._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
  });
  it('6.5.58 simulate-research-query, not ambiguous: no elicitation, a completed result', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrentV1({ scheduler: clock.scheduler }, { capabilities: { elicitation: {} } });
    let elicited = false;
    pair.client.setRequestHandler(ElicitRequestSchema, () => {
      elicited = true;
      return { action: 'cancel' };
    });
    const messages: unknown[] = [];
    await clock.run(
      (async () => {
        for await (const message of pair.client.experimental.tasks.callToolStream(
          { name: 'simulate-research-query', arguments: { topic: 'Quantum' } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        )) {
          messages.push(message);
        }
      })(),
    );
    expect(elicited).toBe(false);
    expect(messages.at(-1)).toMatchObject({ type: 'result' });
  });
  it('6.5.59 gzip-file-as-resource as a resource link', async () => {
    const { content } = await call('gzip-file-as-resource', {
      name: 'test.txt.gz',
      data: dataUri('Hello, World!'),
      outputType: 'resourceLink',
    });
    expect(content[0]).toEqual({
      type: 'resource_link',
      uri: 'demo://resource/session/test.txt.gz',
      name: 'test.txt.gz',
      mimeType: 'application/gzip',
    });
  });
  it('6.5.60 gzip-file-as-resource as a resource', async () => {
    const { content } = await call('gzip-file-as-resource', { name: 'output.gz', data: dataUri('Hello, World!'), outputType: 'resource' });
    expect(content[0]).toMatchObject({ type: 'resource', resource: { mimeType: 'application/gzip', blob: expect.any(String) } });
  });
  it('6.5.61 gzip-file-as-resource refuses ftp:', async () => {
    expect(errorText(await call('gzip-file-as-resource', { data: 'ftp://example.com/file.txt' }))).toBe(
      'Error processing file ftp://example.com/file.txt: Unsupported URL protocol for ftp://example.com/file.txt. Only http, https, and data URLs are supported.',
    );
  });
});
