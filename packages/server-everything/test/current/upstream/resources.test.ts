/** The reference's own suite, ported (see ./helpers.ts): upstream `resources.test.ts`. */
import { describe, expect, it } from 'vitest';
import { createSessionResources, getSessionResourceURI } from '../../../src/profiles/current/resources/session.js';
import {
  blobResource,
  blobResourceUri,
  RESOURCE_TYPES,
  resourceIdForPromptCompleter,
  resourceIdForResourceTemplateCompleter,
  resourceTypeCompleter,
  textResource,
  textResourceUri,
} from '../../../src/profiles/current/resources/templates.js';
import { createTestClock } from '../../clock.js';
import { connectCurrent, text } from '../helpers.js';

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
    const pair = await connectCurrent({ scheduler: createTestClock().scheduler }); // its ticks never come
    for (let i = 0; i < 3; i++) text(await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} }));
    await pair[Symbol.asyncDispose]();
  });
});
