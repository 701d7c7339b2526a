// `test_trigger_tool_change` / `test_trigger_prompt_change` (the `server-stateless` scenario's listen checks,
// 2026-07-28): over HTTP every request gets a fresh server, so the change goes out on the process's listen bus and
// reaches the `subscriptions/listen` stream that asked for it (and only that kind).
import { createListenBus } from '@mcpkit/protocol-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createConformanceServer } from '../../src/profiles/conformance/index.js';
import { until } from '../legacy/helpers.js';

async function connectWithBus() {
  const listen = createListenBus();
  const handler = createMcpHandler(() => createConformanceServer({ listChanges: listen.notify }), { bus: listen.bus });
  const client = new Client({ name: 'listen-test', version: '0.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  return {
    client,
    async [Symbol.asyncDispose]() {
      await client.close();
      await handler.close();
    },
  };
}

describe('conformance profile: list changes on subscriptions/listen (2026-07-28, HTTP)', () => {
  it('each trigger reaches a stream that asked for its list, and only that one', async () => {
    await using pair = await connectWithBus();
    const heard: string[] = [];
    pair.client.setNotificationHandler('notifications/tools/list_changed', () => void heard.push('tools'));
    pair.client.setNotificationHandler('notifications/prompts/list_changed', () => void heard.push('prompts'));
    const subscription = await pair.client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });

    await pair.client.callTool({ name: 'test_trigger_prompt_change', arguments: {} });
    const result = await pair.client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'tools_list_changed published' }]);
    await until(() => heard.length > 0);
    expect(heard).toEqual(['tools']);
    await subscription.close();
  });
});
