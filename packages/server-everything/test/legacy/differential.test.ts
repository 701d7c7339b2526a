import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../clock.js';
import {
  dataUri,
  failure,
  REFERENCE_INSTRUCTIONS,
  raw,
  spawnReference,
  until,
  type Wired,
  type WireOptions,
  wireLegacy,
} from './helpers.js';
import { LEGACY_UNGATED_TOOLS } from './toolNames.js';

/**
 * The same client, the same requests: the reference bin (npm 2025.11.25 over stdio) and our legacy profile
 * (in-process) must answer alike, modulo what we add (tool titles and annotations) and the documented
 * fixes. Raw results are compared: the SDK client's schemas would strip `text`/`blob` and `name`.
 */

const FULL: ClientCapabilities = { roots: {}, sampling: {}, elicitation: {} };

/** Client handlers for the requests the server sends: fixed answers, and what arrived recorded. */
function handlers(requests: { method: string; params: unknown }[], capabilities: ClientCapabilities): WireOptions['setup'] {
  return (client: Client) => {
    // The SDK client refuses handlers for capabilities it did not declare.
    if (!capabilities.roots) return;
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      requests.push({ method: request.method, params: request.params });
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'a sampled reply' } };
    });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      requests.push({ method: request.method, params: request.params });
      return { action: 'accept', content: { name: 'Ann', check: false, color: 'red', petType: 'cats', number: 3.5 } };
    });
  };
}

/** The server→client request of `method` as it went over the wire. */
function sentRequest(received: JSONRPCMessage[], method: string) {
  const message = received.find((m) => 'method' in m && m.method === method && 'id' in m);
  return message && 'params' in message ? message.params : undefined;
}

/** A tool as the reference lists it: ours without the title and annotations we add. */
function withoutAdditions(tool: Record<string, unknown>) {
  const { title: _title, annotations: _annotations, ...rest } = tool;
  return rest;
}

describe.each([
  ['a client without capabilities', {} as ClientCapabilities],
  ['a client with roots, sampling and elicitation', FULL],
])('legacy profile vs the reference, %s', (_label, capabilities) => {
  let reference: Wired;
  let ours: Wired;
  /** Our simulations' clock (the reference runs on its own process's timers). */
  const clock = createTestClock();
  const referenceRequests: { method: string; params: unknown }[] = [];
  const ourRequests: { method: string; params: unknown }[] = [];

  beforeAll(async () => {
    [reference, ours] = await Promise.all([
      spawnReference({ capabilities, setup: handlers(referenceRequests, capabilities) }),
      wireLegacy({ scheduler: clock.scheduler }, { capabilities, setup: handlers(ourRequests, capabilities) }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([reference?.[Symbol.asyncDispose](), ours?.[Symbol.asyncDispose]()]);
  });

  it('initialize: the same serverInfo, capabilities and instructions', () => {
    expect(ours.client.getServerVersion()).toEqual(reference.client.getServerVersion());
    expect(ours.client.getServerVersion()).toEqual({
      name: 'example-servers/everything',
      title: 'Everything Example Server',
      version: '1.0.0',
    });
    expect(ours.client.getServerCapabilities()).toEqual(reference.client.getServerCapabilities());
    expect(ours.client.getInstructions()).toBe(reference.client.getInstructions());
    expect(ours.client.getInstructions()).toBe(readFileSync(REFERENCE_INSTRUCTIONS, 'utf8'));
  });

  it('the same roots log line after initialized', async () => {
    await until(() => reference.logs.length > 0 && ours.logs.length > 0);
    expect(ours.logs).toEqual(reference.logs);
    expect(ours.logs[0]).toMatchObject({ level: 'info', logger: 'everything-server' });
  });

  it('tools/list: the same tools, in order, with the same schemas; we add a title and four hints to each', async () => {
    const [theirs, mine] = await Promise.all([raw(reference.client, 'tools/list'), raw(ours.client, 'tools/list')]);
    const ourTools = mine.tools as Record<string, unknown>[];
    expect(ourTools.map(withoutAdditions)).toEqual(theirs.tools);
    // Key order too: the JSON Schemas are zodToJsonSchema's, byte for byte.
    expect(JSON.stringify(ourTools.map(withoutAdditions))).toBe(JSON.stringify(theirs.tools));
    expect(ourTools.map((t) => t.name)).toEqual(
      capabilities === FULL ? [...LEGACY_UNGATED_TOOLS, 'listRoots', 'startElicitation'] : LEGACY_UNGATED_TOOLS,
    );
    for (const tool of ourTools) {
      expect(typeof tool.title).toBe('string');
      expect(tool.annotations).toEqual({
        title: tool.title,
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      });
    }
  });

  it('prompts/list, resources/templates/list and every resources/list page are identical', async () => {
    for (const method of ['prompts/list', 'resources/templates/list']) {
      const [theirs, mine] = await Promise.all([raw(reference.client, method), raw(ours.client, method)]);
      expect(mine).toEqual(theirs);
    }
    let cursor: string | undefined;
    let pages = 0;
    do {
      const params = cursor ? { cursor } : {};
      const [theirs, mine] = await Promise.all([
        raw(reference.client, 'resources/list', params),
        raw(ours.client, 'resources/list', params),
      ]);
      expect(mine).toEqual(theirs);
      cursor = mine.nextCursor as string | undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(10);
  });

  it('the same reads, prompts and completions', async () => {
    const requests: [string, Record<string, unknown>][] = [
      ['resources/read', { uri: 'test://static/resource/1' }],
      ['resources/read', { uri: 'test://static/resource/100' }],
      ['prompts/get', { name: 'simple_prompt' }],
      ['prompts/get', { name: 'complex_prompt', arguments: { temperature: '0.7', style: 'formal' } }],
      ['prompts/get', { name: 'complex_prompt' }],
      ['prompts/get', { name: 'resource_prompt', arguments: { resourceId: '2' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'complex_prompt' }, argument: { name: 'style', value: 'f' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'anything' }, argument: { name: 'temperature', value: '0' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'complex_prompt' }, argument: { name: 'unknown', value: '' } }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://static/resource/{id}' }, argument: { name: 'id', value: '' } }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://static/resource/' }, argument: { name: 'id', value: '1' } }],
    ];
    for (const [method, params] of requests) {
      const [theirs, mine] = await Promise.all([raw(reference.client, method, params), raw(ours.client, method, params)]);
      expect(mine, `${method} ${JSON.stringify(params)}`).toEqual(theirs);
    }
  });

  it('the same tool results', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['echo', { message: 'hello' }],
      ['echo', { message: 'extra keys are stripped', extra: 1 }],
      ['add', { a: 1.5, b: -4 }],
      ['longRunningOperation', { duration: 0.02, steps: 2 }],
      ['getTinyImage', {}],
      ['annotatedMessage', { messageType: 'error' }],
      ['annotatedMessage', { messageType: 'success', includeImage: true }],
      ['annotatedMessage', { messageType: 'debug', includeImage: false }],
      ['getResourceLinks', {}],
      ['getResourceLinks', { count: 10 }],
      ['structuredContent', { location: '  Paris ' }],
      ['listRoots', {}],
    ];
    if (capabilities === FULL) calls.push(['sampleLLM', { prompt: 'Hi there', maxTokens: 42 }], ['startElicitation', {}]);
    for (const [name, args] of calls) {
      const [theirs, mine] = await Promise.all([
        raw(reference.client, 'tools/call', { name, arguments: args }),
        clock.run(raw(ours.client, 'tools/call', { name, arguments: args })),
      ]);
      expect(mine, name).toEqual(theirs);
    }
  });

  it('getResourceReference: the reference object, without the embedded resource `name` (SDK v2 drops it, as SDK 1.32 does)', async () => {
    const [theirs, mine] = await Promise.all([
      raw(reference.client, 'tools/call', { name: 'getResourceReference', arguments: { resourceId: 7 } }),
      raw(ours.client, 'tools/call', { name: 'getResourceReference', arguments: { resourceId: 7 } }),
    ]);
    // The reference sends `name` and the client's SDK strips it; SDK v2 strips it before sending (README).
    expect(mine).toEqual(theirs);
    expect((mine.content as { resource?: Record<string, unknown> }[])[1]?.resource).toEqual({
      uri: 'test://static/resource/7',
      mimeType: 'text/plain',
      text: 'Resource 7: This is a plaintext resource',
    });
  });

  it('the same JSON-RPC errors for an unknown tool, prompt and resource, and a bad resourceId', async () => {
    const requests: [string, Record<string, unknown>][] = [
      ['tools/call', { name: 'nope', arguments: {} }],
      ['prompts/get', { name: 'nope' }],
      ['prompts/get', { name: 'resource_prompt', arguments: { resourceId: 'abc' } }],
      ['prompts/get', { name: 'resource_prompt', arguments: { resourceId: '101' } }],
      ['resources/read', { uri: 'test://static/resource/0' }],
      ['resources/read', { uri: 'file:///etc/passwd' }],
    ];
    for (const [method, params] of requests) {
      const [theirs, mine] = await Promise.all([failure(raw(reference.client, method, params)), failure(raw(ours.client, method, params))]);
      expect(mine, `${method} ${JSON.stringify(params)}`).toEqual(theirs);
      expect(mine.code).toBe(-32603);
    }
  });

  it('invalid arguments: a JSON-RPC error with the same code, and a readable message instead of zod 3’s issue dump', async () => {
    const [theirs, mine] = await Promise.all([
      failure(raw(reference.client, 'tools/call', { name: 'add', arguments: { a: 1 } })),
      failure(raw(ours.client, 'tools/call', { name: 'add', arguments: { a: 1 } })),
    ]);
    expect(mine.code).toBe(theirs.code);
    expect(theirs.message).toContain('"code": "invalid_type"');
    expect(mine.message).toBe(
      'MCP error -32603: Input validation error: Invalid arguments for tool add: Invalid input: expected number, received undefined at b',
    );
  });

  if (capabilities === FULL) {
    it('sampleLLM and startElicitation send byte-identical requests', async () => {
      for (const method of ['sampling/createMessage', 'elicitation/create']) {
        const theirs = sentRequest(reference.received, method);
        const mine = sentRequest(ours.received, method);
        expect(theirs).toBeDefined();
        expect(JSON.stringify(mine)).toBe(JSON.stringify(theirs));
      }
      expect(ourRequests).toEqual(referenceRequests);
    });
  }
});

describe('zip, where the reference fails on SDK ≥ 1.23', () => {
  it('the reference answers -32602 "Invalid tools/call result" (its link has no name); ours returns the link with one', async () => {
    await using reference = await spawnReference();
    await using ours = await wireLegacy();
    const args = { name: 'zip', arguments: { files: { 'a.txt': dataUri('hello') } } };
    expect((await failure(raw(reference.client, 'tools/call', args))).message).toContain('Invalid tools/call result');
    const result = await ours.client.callTool(args);
    expect(result.content).toEqual([
      {
        type: 'resource_link',
        mimeType: 'application/zip',
        uri: expect.stringMatching(/^data:application\/zip;base64,/),
        name: 'files.zip',
      },
    ]);
  });
});
