/**
 * The reference's own suite (modelcontextprotocol/servers `src/everything/__tests__`, HEAD 76d64c82; the spec's
 * §6.1–6.5, 107 tests), ported. Upstream calls registration functions and handlers on mocks; here the same
 * facts are checked over the wire with a real SDK client (so SDK validation runs too), or on the exported
 * helpers where the upstream test is about a helper. Test names carry the upstream file and number.
 */

import type { CallToolResult, ClientCapabilities, ResourceLink } from '@modelcontextprotocol/client';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createSessionResources, getSessionResourceURI } from '../../src/profiles/current/resources/session.js';
import {
  blobResource,
  blobResourceUri,
  RESOURCE_TYPES,
  resourceIdForPromptCompleter,
  resourceIdForResourceTemplateCompleter,
  resourceTypeCompleter,
  textResource,
  textResourceUri,
} from '../../src/profiles/current/resources/templates.js';
import { createEverythingServer } from '../../src/server.js';
import { MCP_TINY_IMAGE } from '../../src/shared/mcpTinyImage.js';
import { connectCurrent, connectCurrentV1, dataUri, errorText, text, texts } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const UNGATED = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-long-running-operation',
];

async function toolNames(capabilities: ClientCapabilities): Promise<string[]> {
  await using pair = await connectCurrent({}, { capabilities });
  return (await pair.client.listTools()).tools.map((t) => t.name);
}

async function call(name: string, args: Record<string, unknown> = {}, capabilities: ClientCapabilities = {}) {
  await using pair = await connectCurrent({}, { capabilities });
  return (await pair.client.callTool({ name, arguments: args })) as CallToolResult;
}

async function prompt(name: string, args?: Record<string, string>) {
  await using pair = await connectCurrent();
  return await pair.client.getPrompt({ name, ...(args ? { arguments: args } : {}) });
}

describe('server.test.ts (5)', () => {
  it('6.1.1 the factory returns a server; its cleanup is closing it', async () => {
    const server = createEverythingServer({ profile: 'current' });
    expect(server).toBeInstanceOf(McpServer);
    await expect(server.close()).resolves.toBeUndefined();
  });
  it('6.1.2 cleanup (close) is a function', () => {
    expect(typeof createEverythingServer({ profile: 'current' }).close).toBe('function');
  });
  it('6.1.3 server and server.server are defined', () => {
    const server = createEverythingServer({ profile: 'current' });
    expect(server).toBeDefined();
    expect(server.server).toBeDefined();
  });
  it('6.1.4 server.server.oninitialized is set', () => {
    expect(createEverythingServer({ profile: 'current' }).server.oninitialized).toBeTypeOf('function');
  });
  it('6.1.5 two calls return different server instances', () => {
    const a = createEverythingServer({ profile: 'current' });
    const b = createEverythingServer({ profile: 'current' });
    expect(a).not.toBe(b);
    expect(a.server).not.toBe(b.server);
  });
});

describe('registrations.test.ts (6)', () => {
  it('6.2.1 registers exactly the 12 unconditional tools (plus the task tool every client gets)', async () => {
    const names = await toolNames({});
    expect(names.filter((n) => n !== 'simulate-research-query')).toEqual(UNGATED);
    expect(names).toHaveLength(13);
  });
  it('6.2.2 with roots, URL elicitation and sampling: the 4 gated tools and the task tool, no async tools', async () => {
    const names = await toolNames({ roots: {}, elicitation: { url: {} }, sampling: {} });
    expect(names.slice(12)).toEqual([
      'get-roots-list',
      'trigger-elicitation-request',
      'trigger-url-elicitation',
      'trigger-sampling-request',
      'simulate-research-query',
    ]);
  });
  it('6.2.3 without client capabilities no gated tool is registered', async () => {
    const names = await toolNames({});
    for (const gated of ['get-roots-list', 'trigger-elicitation-request', 'trigger-url-elicitation', 'trigger-sampling-request']) {
      expect(names).not.toContain(gated);
    }
  });
  it('6.2.4 registers the 4 prompts', async () => {
    await using pair = await connectCurrent();
    expect((await pair.client.listPrompts()).prompts.map((p) => p.name)).toEqual([
      'simple-prompt',
      'args-prompt',
      'completable-prompt',
      'resource-prompt',
    ]);
  });
  it('6.2.5 registers the Dynamic Text and Dynamic Blob templates', async () => {
    await using pair = await connectCurrent();
    const names = (await pair.client.listResourceTemplates()).resourceTemplates.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['Dynamic Text Resource', 'Dynamic Blob Resource']));
  });
  it('6.2.6 sends non-empty instructions', async () => {
    await using pair = await connectCurrent();
    expect(pair.client.getInstructions()).toMatch(/Everything Server/);
  });
});

describe('prompts.test.ts (11)', () => {
  it('6.3.1 simple-prompt', async () => {
    expect(await prompt('simple-prompt')).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } }],
    });
  });
  it('6.3.2 args-prompt with a city', async () => {
    const { messages } = await prompt('args-prompt', { city: 'San Francisco' });
    expect(messages[0]!.content).toEqual({ type: 'text', text: "What's weather in San Francisco?" });
  });
  it('6.3.3 args-prompt with a city and a state', async () => {
    const { messages } = await prompt('args-prompt', { city: 'San Francisco', state: 'California' });
    expect(messages[0]!.content).toEqual({ type: 'text', text: "What's weather in San Francisco, California?" });
  });
  it('6.3.4 args-prompt without a state has no comma', async () => {
    const { messages } = await prompt('args-prompt', { city: 'New York' });
    expect(messages[0]).toEqual({ role: 'user', content: { type: 'text', text: "What's weather in New York?" } });
  });
  it('6.3.5 completable-prompt', async () => {
    const { messages } = await prompt('completable-prompt', { department: 'Engineering', name: 'Alice' });
    expect(messages[0]!.content).toEqual({ type: 'text', text: 'Please promote Alice to the head of the Engineering team.' });
  });
  it('6.3.6 completable-prompt with other departments', async () => {
    for (const [department, name] of [
      ['Sales', 'David'],
      ['Marketing', 'Grace'],
    ] as const) {
      const { messages } = await prompt('completable-prompt', { department, name });
      expect(messages[0]!.role).toBe('user');
      expect((messages[0]!.content as { text: string }).text).toContain(department);
      expect((messages[0]!.content as { text: string }).text).toContain(name);
    }
  });
  it('6.3.7 resource-prompt Text 1', async () => {
    const { messages } = await prompt('resource-prompt', { resourceType: 'Text', resourceId: '1' });
    expect(messages).toHaveLength(2);
    expect((messages[0]!.content as { text: string }).text).toBe(
      'This prompt includes the Text resource with id: 1. Please analyze the following resource:',
    );
    expect(messages[1]!.content.type).toBe('resource');
    expect((messages[1]!.content as { resource: { uri: string } }).resource.uri).toBe('demo://resource/dynamic/text/1');
  });
  it('6.3.8 resource-prompt Blob 5', async () => {
    const { messages } = await prompt('resource-prompt', { resourceType: 'Blob', resourceId: '5' });
    expect((messages[0]!.content as { text: string }).text).toContain('Blob');
    expect((messages[1]!.content as { resource: { uri: string } }).resource.uri).toContain('blob/5');
  });
  it('6.3.9 resource-prompt refuses an invalid resourceType', async () => {
    await expect(prompt('resource-prompt', { resourceType: 'Invalid', resourceId: '1' })).rejects.toMatchObject({
      code: -32603,
      message: 'Invalid resourceType: Invalid. Must be Text or Blob.',
    });
  });
  it('6.3.10 resource-prompt refuses resourceId -1, 0 and abc', async () => {
    for (const id of ['-1', '0', 'abc']) {
      await expect(prompt('resource-prompt', { resourceType: 'Text', resourceId: id })).rejects.toThrow(
        `Invalid resourceId: ${id}. Must be a finite positive integer.`,
      );
    }
  });
  it('6.3.11 resource-prompt returns a text message then a resource message', async () => {
    const { messages } = await prompt('resource-prompt', { resourceType: 'Text', resourceId: '3' });
    expect(messages.map((m) => [m.role, m.content.type])).toEqual([
      ['user', 'text'],
      ['user', 'resource'],
    ]);
  });
});

describe('resources.test.ts (24)', () => {
  it('6.4.1 RESOURCE_TYPES is Text and Blob', () => {
    expect(RESOURCE_TYPES).toEqual(['Text', 'Blob']);
  });
  it('6.4.2 textResourceUri(1)', () => {
    expect(textResourceUri(1).toString()).toBe('demo://resource/dynamic/text/1');
  });
  it('6.4.3 textResourceUri(5), (100)', () => {
    expect(textResourceUri(5).toString()).toBe('demo://resource/dynamic/text/5');
    expect(textResourceUri(100).toString()).toBe('demo://resource/dynamic/text/100');
  });
  it('6.4.4 blobResourceUri(1)', () => {
    expect(blobResourceUri(1).toString()).toBe('demo://resource/dynamic/blob/1');
  });
  it('6.4.5 blobResourceUri(5), (100)', () => {
    expect(blobResourceUri(5).toString()).toBe('demo://resource/dynamic/blob/5');
    expect(blobResourceUri(100).toString()).toBe('demo://resource/dynamic/blob/100');
  });
  it('6.4.6 textResource', () => {
    const resource = textResource(textResourceUri(1), 1);
    expect(resource.uri).toBe('demo://resource/dynamic/text/1');
    expect(resource.mimeType).toBe('text/plain');
    expect(resource.text).toContain('Resource 1');
    expect(resource.text).toContain('plaintext');
  });
  it('6.4.7 textResource is timestamped', () => {
    expect(textResource(textResourceUri(2), 2).text).toMatch(/created at .*\d/);
  });
  it('6.4.8 blobResource says text/plain', () => {
    const resource = blobResource(blobResourceUri(1), 1);
    expect(resource.uri).toBe('demo://resource/dynamic/blob/1');
    expect(resource.mimeType).toBe('text/plain');
    expect(resource.blob).toBeDefined();
  });
  it('6.4.9 blobResource decodes to its text', () => {
    const decoded = Buffer.from(blobResource(blobResourceUri(3), 3).blob, 'base64').toString('utf8');
    expect(decoded).toContain('Resource 3');
    expect(decoded).toContain('base64 blob');
  });
  it('6.4.10 resourceTypeCompleter is a schema', () => {
    expect(resourceTypeCompleter.parse).toBeTypeOf('function');
  });
  it('6.4.11 resourceTypeCompleter parses Text and Blob', () => {
    expect(resourceTypeCompleter.parse('Text')).toBe('Text');
    expect(resourceTypeCompleter.parse('Blob')).toBe('Blob');
  });
  it('6.4.12 resourceIdForPromptCompleter is a schema', () => {
    expect(resourceIdForPromptCompleter.parse).toBeTypeOf('function');
  });
  it('6.4.13 resourceIdForPromptCompleter parses 1 and 100', () => {
    expect(resourceIdForPromptCompleter.parse('1')).toBe('1');
    expect(resourceIdForPromptCompleter.parse('100')).toBe('100');
  });
  it('6.4.14 the template completer keeps positive integers', () => {
    expect(resourceIdForResourceTemplateCompleter('1')).toEqual(['1']);
    expect(resourceIdForResourceTemplateCompleter('50')).toEqual(['50']);
  });
  it('6.4.15 the template completer drops anything else', () => {
    for (const value of ['0', '-5', 'not-a-number']) expect(resourceIdForResourceTemplateCompleter(value)).toEqual([]);
  });
  it('6.4.16 two templates, text and blob', async () => {
    await using pair = await connectCurrent();
    const { resourceTemplates } = await pair.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'demo://resource/dynamic/text/{resourceId}',
      'demo://resource/dynamic/blob/{resourceId}',
    ]);
    expect((await pair.client.readResource({ uri: 'demo://resource/dynamic/text/7' })).contents[0]).toMatchObject({
      uri: 'demo://resource/dynamic/text/7',
      mimeType: 'text/plain',
    });
  });
  it('6.4.17 getSessionResourceURI', () => {
    expect(getSessionResourceURI('test')).toBe('demo://resource/session/test');
  });
  it('6.4.18 getSessionResourceURI of other names', () => {
    expect(getSessionResourceURI('my-file')).toBe('demo://resource/session/my-file');
    expect(getSessionResourceURI('document_123')).toBe('demo://resource/session/document_123');
  });
  it('6.4.19 a text session resource: registered, listed, and a resource_link returned', async () => {
    await using pair = await connectCurrent();
    const resources = createSessionResources(pair.server, 1 << 20);
    const resource = { uri: 'demo://resource/session/test-file', name: 'test-file', mimeType: 'text/plain', description: 'A test file' };
    expect(resources.register(resource, 'text', 'Hello, World!')).toEqual({ type: 'resource_link', ...resource });
    const listed = (await pair.client.listResources()).resources.find((r) => r.uri === resource.uri);
    expect(listed).toEqual({ uri: resource.uri, name: 'test-file', mimeType: 'text/plain', description: 'A test file' });
  });
  it('6.4.20 a blob session resource', async () => {
    await using pair = await connectCurrent();
    const resources = createSessionResources(pair.server, 1 << 20);
    const resource = { uri: 'demo://resource/session/b', name: 'b', mimeType: 'application/octet-stream' };
    const blob = Buffer.from('binary').toString('base64');
    expect(resources.register(resource, 'blob', blob).type).toBe('resource_link');
    expect((await pair.client.readResource({ uri: resource.uri })).contents).toEqual([
      { uri: resource.uri, mimeType: 'application/octet-stream', blob },
    ]);
  });
  it('6.4.21 reading a text session resource', async () => {
    await using pair = await connectCurrent();
    const resources = createSessionResources(pair.server, 1 << 20);
    resources.register({ uri: 'demo://resource/session/t', name: 't', mimeType: 'text/plain' }, 'text', 'Test content here');
    const { contents } = await pair.client.readResource({ uri: 'demo://resource/session/t' });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ text: 'Test content here', mimeType: 'text/plain' });
  });
  it('6.4.22 the docs/ files are static resources', async () => {
    await using pair = await connectCurrent();
    const { resources } = await pair.client.listResources();
    expect(resources.map((r) => r.name)).toContain('features.md');
    expect(resources.every((r) => r.uri.startsWith('demo://resource/static/document/'))).toBe(true);
  });
  it('6.4.23 subscribe and unsubscribe are handled', async () => {
    await using pair = await connectCurrent();
    expect(pair.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    await expect(pair.client.subscribeResource({ uri: 'demo://any' })).resolves.toEqual({});
    await expect(pair.client.unsubscribeResource({ uri: 'demo://any' })).resolves.toEqual({});
  });
  it('6.4.24 starting and stopping simulated updates, and closing, never throw', async () => {
    const pair = await connectCurrent();
    for (let i = 0; i < 3; i++) text(await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} }));
    await pair[Symbol.asyncDispose]();
  });
});

describe('tools.test.ts (61)', () => {
  it('6.5.1 echo', async () => {
    expect(await call('echo', { message: 'Hello, World!' })).toEqual({ content: [{ type: 'text', text: 'Echo: Hello, World!' }] });
  });
  it('6.5.2 echo of an empty string', async () => {
    expect(text(await call('echo', { message: '' }))).toBe('Echo: ');
  });
  it('6.5.3 echo refuses {} and {message: 123}', async () => {
    // SDK v2's text: no `MCP error -32602:` prefix, the path first.
    expect(errorText(await call('echo', {}))).toBe(
      'Input validation error: Invalid arguments for tool echo: message: Invalid input: expected string, received undefined',
    );
    expect(errorText(await call('echo', { message: 123 }))).toMatch(/message: Invalid input: expected string, received number/);
  });
  it('6.5.4 echo accepts {message: "test"}', async () => {
    expect(text(await call('echo', { message: 'test' }))).toBe('Echo: test');
  });
  it('6.5.5 echo schema requires message', async () => {
    await using pair = await connectCurrent();
    const echo = (await pair.client.listTools()).tools.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema.required).toEqual(['message']);
  });
  it('6.5.6 echo schema types message as a string', async () => {
    await using pair = await connectCurrent();
    const echo = (await pair.client.listTools()).tools.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema.properties).toEqual({ message: { type: 'string', description: 'Message to echo' } });
  });
  it('6.5.7 get-sum 5 + 3', async () => {
    expect(text(await call('get-sum', { a: 5, b: 3 }))).toBe('The sum of 5 and 3 is 8.');
  });
  it('6.5.8 get-sum -5 + 3', async () => {
    expect(text(await call('get-sum', { a: -5, b: 3 }))).toBe('The sum of -5 and 3 is -2.');
  });
  it('6.5.9 get-sum 0 + 0', async () => {
    expect(text(await call('get-sum', { a: 0, b: 0 }))).toBe('The sum of 0 and 0 is 0.');
  });
  it('6.5.10 get-sum 1.5 + 2.5', async () => {
    expect(text(await call('get-sum', { a: 1.5, b: 2.5 }))).toBe('The sum of 1.5 and 2.5 is 4.');
  });
  it('6.5.11 get-sum refuses {}, a string, a missing b', async () => {
    for (const args of [{}, { a: 'not a number', b: 5 }, { a: 5 }]) errorText(await call('get-sum', args));
  });
  it('6.5.12 get-env reports the environment', async () => {
    await using pair = await connectCurrent({ env: { TEST_VAR_EVERYTHING: 'test_value' } });
    const result = await pair.client.callTool({ name: 'get-env', arguments: {} });
    expect(JSON.parse(text(result))).toEqual({ TEST_VAR_EVERYTHING: 'test_value' });
  });
  it('6.5.13 get-env is valid JSON', async () => {
    expect(JSON.parse(text(await call('get-env')))).toBeTypeOf('object');
  });
  it('6.5.14 get-tiny-image', async () => {
    expect((await call('get-tiny-image')).content).toEqual([
      { type: 'text', text: "Here's the image you requested:" },
      { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png' },
      { type: 'text', text: 'The image above is the MCP logo.' },
    ]);
  });
  it('6.5.15 get-tiny-image is a decodable PNG', async () => {
    const image = (await call('get-tiny-image')).content[1] as { data: string; mimeType: string };
    expect(image.mimeType).toBe('image/png');
    expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
  });
  it('6.5.16 get-structured-content New York', async () => {
    const result = await call('get-structured-content', { location: 'New York' });
    expect(result.structuredContent).toEqual({ temperature: 33, conditions: 'Cloudy', humidity: 82 });
    expect(JSON.parse(text(result))).toEqual(result.structuredContent);
  });
  it('6.5.17 get-structured-content Chicago', async () => {
    expect((await call('get-structured-content', { location: 'Chicago' })).structuredContent).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });
  it('6.5.18 get-structured-content Los Angeles', async () => {
    expect((await call('get-structured-content', { location: 'Los Angeles' })).structuredContent).toEqual({
      temperature: 73,
      conditions: 'Sunny / Clear',
      humidity: 48,
    });
  });
  it('6.5.19 get-annotated-message error', async () => {
    expect((await call('get-annotated-message', { messageType: 'error', includeImage: false })).content).toEqual([
      { type: 'text', text: 'Error: Operation failed', annotations: { priority: 1.0, audience: ['user', 'assistant'] } },
    ]);
  });
  it('6.5.20 get-annotated-message success', async () => {
    expect((await call('get-annotated-message', { messageType: 'success' })).content).toEqual([
      { type: 'text', text: 'Operation completed successfully', annotations: { priority: 0.7, audience: ['user'] } },
    ]);
  });
  it('6.5.21 get-annotated-message debug', async () => {
    const [block] = (await call('get-annotated-message', { messageType: 'debug' })).content as {
      text: string;
      annotations: unknown;
    }[];
    expect(block!.text).toContain('Debug:');
    expect(block!.annotations).toEqual({ priority: 0.3, audience: ['assistant'] });
  });
  it('6.5.22 get-annotated-message with an image', async () => {
    const { content } = await call('get-annotated-message', { messageType: 'success', includeImage: true });
    expect(content).toHaveLength(2);
    expect(content[1]).toEqual({
      type: 'image',
      data: MCP_TINY_IMAGE,
      mimeType: 'image/png',
      annotations: { priority: 0.5, audience: ['user'] },
    });
  });
  it('6.5.23 trigger-long-running-operation', async () => {
    const message = text(await call('trigger-long-running-operation', { duration: 0.1, steps: 2 }));
    expect(message).toBe('Long running operation completed. Duration: 0.1 seconds, Steps: 2.');
  });
  it('6.5.24 trigger-long-running-operation reports progress to the token given', async () => {
    await using pair = await connectCurrent();
    const progress: unknown[] = [];
    pair.client.setNotificationHandler('notifications/progress', (n) => void progress.push(n.params));
    await pair.client.request({
      method: 'tools/call',
      params: { name: 'trigger-long-running-operation', arguments: { duration: 0.02, steps: 2 }, _meta: { progressToken: 'token-123' } },
    });
    expect(progress).toEqual([
      { progressToken: 'token-123', progress: 1, total: 2 },
      { progressToken: 'token-123', progress: 2, total: 2 },
    ]);
  });
  it('6.5.25 get-resource-links count 3', async () => {
    const { content } = await call('get-resource-links', { count: 3 });
    expect(content).toHaveLength(4);
    expect(texts({ content: [content[0]] })[0]).toContain('3 resource links');
    for (const block of content.slice(1))
      expect(block).toMatchObject({ type: 'resource_link', uri: expect.any(String), name: expect.any(String) });
  });
  it('6.5.26 get-resource-links alternates Blob (odd) and Text (even)', async () => {
    const { content } = await call('get-resource-links', { count: 4 });
    expect(content.slice(1).map((c) => (c as ResourceLink).name)).toEqual([
      'Blob Resource 1',
      'Text Resource 2',
      'Blob Resource 3',
      'Text Resource 4',
    ]);
  });
  it('6.5.27 get-resource-links defaults to 3', async () => {
    expect((await call('get-resource-links', {})).content).toHaveLength(4);
  });
  it('6.5.28 get-resource-reference Text 1', async () => {
    const { content } = await call('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    expect(content).toHaveLength(3);
    expect(texts({ content })[0]).toContain('Resource 1');
    expect(content[1]).toMatchObject({ type: 'resource', resource: { uri: 'demo://resource/dynamic/text/1' } });
    expect(texts({ content })[1]).toContain('URI');
  });
  it('6.5.29 get-resource-reference Blob 5', async () => {
    const { content } = await call('get-resource-reference', { resourceType: 'Blob', resourceId: 5 });
    expect((content[1] as { resource: { uri: string } }).resource.uri).toContain('blob/5');
  });
  it('6.5.30 get-resource-reference refuses an invalid type (here the schema does)', async () => {
    expect(errorText(await call('get-resource-reference', { resourceType: 'Invalid', resourceId: 1 }))).toBe(
      'Input validation error: Invalid arguments for tool get-resource-reference: resourceType: Invalid option: expected one of "Text"|"Blob"',
    );
  });
  it('6.5.31 get-resource-reference refuses resourceId -1, 0, 1.5', async () => {
    for (const id of [-1, 0, 1.5]) {
      expect(errorText(await call('get-resource-reference', { resourceId: id }))).toBe(
        `Invalid resourceId: ${id}. Must be a finite positive integer.`,
      );
    }
  });
  it('6.5.32 toggle-simulated-logging starts', async () => {
    expect(text(await call('toggle-simulated-logging'))).toMatch(
      /^Started simulated, random-leveled logging for session undefined at a 5 second pace/,
    );
  });
  it('6.5.33 toggle-simulated-logging twice stops', async () => {
    await using pair = await connectCurrent();
    await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    expect(text(await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} }))).toBe(
      'Stopped simulated logging for session undefined',
    );
  });
  it('6.5.34 toggle-simulated-logging without a session id starts', async () => {
    expect(text(await call('toggle-simulated-logging'))).toContain('Started');
  });
  it('6.5.35 toggle-subscriber-updates starts', async () => {
    expect(text(await call('toggle-subscriber-updates'))).toBe(
      'Started simulated resource updated notifications for session undefined at a 5 second pace. Client will receive updates for any resources the it is subscribed to.',
    );
  });
  it('6.5.36 toggle-subscriber-updates twice stops', async () => {
    await using pair = await connectCurrent();
    await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    expect(text(await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} }))).toBe(
      'Stopped simulated resource updates for session undefined',
    );
  });
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
    await using pair = await connectCurrentV1({}, { capabilities: { elicitation: {} } });
    const elicitations: { params: Record<string, unknown> }[] = [];
    pair.client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicitations.push(request as never);
      return { action: 'accept', content: { interpretation: 'snake' } };
    });
    let taskId: string | undefined;
    for await (const message of pair.client.experimental.tasks.callToolStream(
      { name: 'simulate-research-query', arguments: { topic: 'python', ambiguous: true } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
    }
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]!.params._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
  });
  it('6.5.58 simulate-research-query, not ambiguous: no elicitation, a completed result', async () => {
    await using pair = await connectCurrentV1({}, { capabilities: { elicitation: {} } });
    let elicited = false;
    pair.client.setRequestHandler(ElicitRequestSchema, () => {
      elicited = true;
      return { action: 'cancel' };
    });
    const messages = [];
    for await (const message of pair.client.experimental.tasks.callToolStream(
      { name: 'simulate-research-query', arguments: { topic: 'Quantum' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(message);
    }
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
