import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMcpServer, defineResource, registerResources } from '../src/index.js';
import { enableSubscriptions, type Subscriptions } from '../src/subscriptions.js';
import { connectInMemory } from '../src/testing/index.js';

function subscribableServer(events: string[]) {
  const server = createMcpServer({ name: 'subs', version: '0' });
  registerResources(server, {}, [
    defineResource({
      name: 'thing',
      title: 'Thing',
      description: 'A thing.',
      uri: 'demo://thing',
      read: (uri) => ({ contents: [{ uri: uri.href, text: 'x' }] }),
    }),
  ]);
  const subs = enableSubscriptions(server, {
    onSubscribe: (uri) => events.push(`+${uri}`),
    onUnsubscribe: (uri) => events.push(`-${uri}`),
  });
  return { server, subs };
}

async function settle() {
  await new Promise((r) => setTimeout(r, 20));
}

describe('enableSubscriptions', () => {
  it('declares the capability and notifies only subscribed sessions', async () => {
    const events: string[] = [];
    const { server, subs } = subscribableServer(events);
    await using pair = await connectInMemory(server);
    expect(pair.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const updates: string[] = [];
    pair.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));

    subs.notifyUpdated('demo://thing');
    await settle();
    expect(updates).toEqual([]);

    await pair.client.subscribeResource({ uri: 'demo://thing' });
    expect((subs as Subscriptions).isSubscribed('demo://thing')).toBe(true);
    subs.notifyUpdated('demo://thing');
    subs.notifyUpdated('demo://other');
    await settle();
    expect(updates).toEqual(['demo://thing']);

    await pair.client.unsubscribeResource({ uri: 'demo://thing' });
    subs.notifyUpdated('demo://thing');
    await settle();
    expect(updates).toEqual(['demo://thing']);
    expect(events).toEqual(['+demo://thing', '-demo://thing']);
  });

  it('releases what is left subscribed when the session closes', async () => {
    const events: string[] = [];
    const { server } = subscribableServer(events);
    const pair = await connectInMemory(server);
    await pair.client.subscribeResource({ uri: 'demo://thing' });
    await pair[Symbol.asyncDispose]();
    expect(events).toEqual(['+demo://thing', '-demo://thing']);
  });
});
