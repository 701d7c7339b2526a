import { InMemoryTransport, type ServerEvent } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { describe, expect, it } from 'vitest';
import { createMcpServer, defineResource, registerResources } from '../src/index.js';
import { createListenBus, enableSubscriptions, type Subscriptions } from '../src/subscriptions.js';
import { connectInMemory, newV2Client } from '../src/testing/index.js';

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
    onSubscribe: (uri) => void events.push(`+${uri}`),
    onUnsubscribe: (uri) => events.push(`-${uri}`),
  });
  return { server, subs };
}

/** One transport delivers in order: once a ping sent after them is answered, earlier notifications are in. */
async function settle(client: { ping(): Promise<unknown> }) {
  await client.ping();
}

describe('enableSubscriptions', () => {
  it('declares the capability and notifies only subscribed sessions', async () => {
    const events: string[] = [];
    const { server, subs } = subscribableServer(events);
    await using pair = await connectInMemory(server);
    expect(pair.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const updates: string[] = [];
    pair.client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));

    subs.notifyUpdated('demo://thing');
    await settle(pair.client);
    expect(updates).toEqual([]);

    await pair.client.subscribeResource({ uri: 'demo://thing' });
    expect((subs as Subscriptions).isSubscribed('demo://thing')).toBe(true);
    subs.notifyUpdated('demo://thing');
    subs.notifyUpdated('demo://other');
    await settle(pair.client);
    expect(updates).toEqual(['demo://thing']);

    await pair.client.unsubscribeResource({ uri: 'demo://thing' });
    subs.notifyUpdated('demo://thing');
    await settle(pair.client);
    expect(updates).toEqual(['demo://thing']);
    expect(events).toEqual(['+demo://thing', '-demo://thing']);
  });

  it('answers resources/subscribe only once an asynchronous onSubscribe has finished', async () => {
    const server = createMcpServer({ name: 'subs', version: '0' });
    const events: string[] = [];
    let ready!: () => void;
    enableSubscriptions(server, {
      onSubscribe: async (uri) => {
        events.push(`start ${uri}`);
        await new Promise<void>((resolve) => (ready = resolve));
        events.push(`ready ${uri}`);
      },
    });
    await using pair = await connectInMemory(server);
    const answered = pair.client.subscribeResource({ uri: 'demo://thing' }).then(() => events.push('answered'));
    await expect.poll(() => events).toEqual(['start demo://thing']);
    await settle(pair.client);
    expect(events).toEqual(['start demo://thing']);
    ready();
    await answered;
    expect(events).toEqual(['start demo://thing', 'ready demo://thing', 'answered']);
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

describe('enableSubscriptions on a 2026 stdio connection', () => {
  it('sends updates onto the subscriptions/listen streams that asked for the URI (the SDK routes them), without resources/subscribe', async () => {
    const events: string[] = [];
    let subs: Subscriptions | undefined;
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(
      () => {
        const built = subscribableServer(events);
        subs = built.subs;
        return built.server;
      },
      { transport: serverTransport },
    );
    const client = newV2Client({ mode: '2026-07-28' });
    await client.connect(clientTransport);
    try {
      const updates: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
      const sub = await client.listen({ resourceSubscriptions: ['demo://thing'] });
      expect(sub.honoredFilter).toEqual({ resourceSubscriptions: ['demo://thing'] });
      subs!.notifyUpdated('demo://other');
      subs!.notifyUpdated('demo://thing');
      // In order on the listen stream: a wrongly sent demo://other would arrive first.
      await expect.poll(() => updates).toEqual(['demo://thing']);
      expect(subs!.uris()).toEqual([]);
      await sub.close();
      subs!.notifyUpdated('demo://thing');
      // An absence: one transport carries every stream in order, so a wrongly sent update is in once a later request
      // is answered (the 2026 era has no ping: a resources/list).
      await client.listResources();
      expect(updates).toEqual(['demo://thing']);
    } finally {
      await client.close();
      await handle.close();
    }
  });
});

describe('createListenBus', () => {
  it('runs whileListened from the first stream to the last, and publishes to every stream', () => {
    const log: string[] = [];
    const listen = createListenBus({
      whileListened: () => {
        log.push('start');
        return () => log.push('stop');
      },
    });
    listen.notify.resourceUpdated('demo://thing'); // nobody listens: dropped
    const a: ServerEvent[] = [];
    const b: ServerEvent[] = [];
    const offA = listen.bus.subscribe((e) => a.push(e));
    const offB = listen.bus.subscribe((e) => b.push(e));
    expect(log).toEqual(['start']);
    expect(listen.listeners()).toBe(2);
    listen.notify.resourceUpdated('demo://thing');
    listen.notify.toolsChanged();
    expect(a).toEqual([{ kind: 'resource_updated', uri: 'demo://thing' }, { kind: 'tools_list_changed' }]);
    expect(b).toEqual(a);
    offA();
    offA(); // idempotent
    expect(log).toEqual(['start']);
    offB();
    expect(log).toEqual(['start', 'stop']);
    expect(listen.listeners()).toBe(0);
    listen.bus.subscribe(() => {});
    expect(log).toEqual(['start', 'stop', 'start']);
  });
});
