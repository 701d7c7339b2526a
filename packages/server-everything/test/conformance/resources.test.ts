import { ErrorCode } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { RED_PIXEL_PNG } from '../../src/profiles/conformance/media.js';
import { createTestClock } from '../clock.js';
import { connect, until } from './helpers.js';

describe('conformance profile: resources', () => {
  it('lists the direct resources with name, title, description and MIME type, and the template separately', async () => {
    await using pair = await connect();
    const { resources } = await pair.client.listResources();
    expect(resources.map((r) => [r.uri, r.name, r.mimeType])).toEqual([
      ['test://static-text', 'static-text', 'text/plain'],
      ['test://static-binary', 'static-binary', 'image/png'],
      ['test://watched-resource', 'watched-resource', 'text/plain'],
    ]);
    for (const r of resources) {
      expect(r.title, r.uri).toMatch(/\S/);
      expect(r.description, r.uri).toMatch(/\S/);
    }
    const { resourceTemplates } = await pair.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'test://template/{id}/data', name: 'template', mimeType: 'application/json' }),
    ]);
  });

  it('reads test://static-text', async () => {
    await using pair = await connect();
    expect(await pair.client.readResource({ uri: 'test://static-text' })).toEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    });
  });

  it('reads test://static-binary as a base64 PNG blob', async () => {
    await using pair = await connect();
    expect(await pair.client.readResource({ uri: 'test://static-binary' })).toEqual({
      contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: RED_PIXEL_PNG }],
    });
  });

  it('reads the template with {id} substituted', async () => {
    await using pair = await connect();
    const { contents } = await pair.client.readResource({ uri: 'test://template/123/data' });
    expect(contents).toEqual([{ uri: 'test://template/123/data', mimeType: 'application/json', text: expect.any(String) }]);
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual({ id: '123', templateTest: true, data: 'Data for ID: 123' });
  });

  it('an unknown URI is a JSON-RPC error', async () => {
    await using pair = await connect();
    await expect(pair.client.readResource({ uri: 'test://nope' })).rejects.toThrow(/not found/i);
  });
});

describe('conformance profile: subscriptions', () => {
  it('subscribe and unsubscribe answer {}; while subscribed the watched resource changes and the client is told', async () => {
    const clock = createTestClock();
    await using pair = await connect({ intervals: { resourceUpdatesMs: 10 }, scheduler: clock.scheduler });
    const updates: string[] = [];
    const logs: unknown[] = [];
    pair.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    pair.client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params.data);
    });
    const before = await pair.client.readResource({ uri: 'test://watched-resource' });
    expect(before.contents).toEqual([
      { uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content (revision 0)' },
    ]);

    expect(await pair.client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    await clock.advance(20);
    await until(() => updates.length >= 2);
    expect(new Set(updates)).toEqual(new Set(['test://watched-resource']));
    const after = await pair.client.readResource({ uri: 'test://watched-resource' });
    expect((after.contents[0] as { text: string }).text).toMatch(/^Watched resource content \(revision [1-9]\d*\)$/);

    expect(await pair.client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    const revision = (await pair.client.readResource({ uri: 'test://watched-resource' })).contents[0] as { text: string };
    // Past several update periods, nothing changed any more: the timer is gone.
    await clock.advance(60);
    expect(clock.pending).toBe(0);
    expect(((await pair.client.readResource({ uri: 'test://watched-resource' })).contents[0] as { text: string }).text).toBe(revision.text);
    expect(logs).toEqual(['Subscribed to resource: test://watched-resource', 'Unsubscribed from resource: test://watched-resource']);
  });

  it('subscribing to a URI this server does not serve is refused with -32602 (SDK v2); template URIs are accepted', async () => {
    await using pair = await connect();
    await expect(pair.client.subscribeResource({ uri: 'test://unknown' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    expect(await pair.client.subscribeResource({ uri: 'test://template/7/data' })).toEqual({});
    expect(await pair.client.subscribeResource({ uri: 'test://static-text' })).toEqual({});
  });

  it('closing the session stops the watched resource timer', async () => {
    const clock = createTestClock();
    const pair = await connect({ intervals: { resourceUpdatesMs: 10 }, scheduler: clock.scheduler });
    let updates = 0;
    pair.client.setNotificationHandler('notifications/resources/updated', () => {
      updates++;
    });
    await pair.client.subscribeResource({ uri: 'test://watched-resource' });
    await clock.advance(10);
    await until(() => updates >= 1);
    expect(clock.pending).toBe(1);
    await pair[Symbol.asyncDispose]();
    expect(clock.pending).toBe(0);
  });
});
