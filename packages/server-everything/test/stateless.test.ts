/**
 * `--stateless` must not lie: a 2025 request on a stateless runner gets a fresh server that never saw the client's
 * `initialize` and is gone once it answered. What needs a session (toggles, subscriptions, tasks, the client's
 * capabilities) answers why it cannot work, never a success that does nothing.
 */
import { startHttp } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createEverythingServer } from '../src/server.js';

const textOf = (result: unknown) => ((result as { content: unknown }).content as { type: string; text: string }[])[0]?.text ?? '';

async function serve(profile: 'legacy' | 'current' | 'conformance') {
  return startHttp({ createServer: (context) => createEverythingServer({ profile }, context) }, { stateless: true });
}

describe('everything --stateless, 2025 clients', () => {
  it('current: a sampling-gated tool says the capabilities are not kept instead of "not found"', async () => {
    await using http = await serve('current');
    const client = await http.connect({ capabilities: { sampling: {} } });
    const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "this server runs --stateless: the client's capabilities from initialize are not kept; trigger-sampling-request needs a session or a 2026 request",
    );
  });

  it.each([
    ['toggle-simulated-logging', 'simulated logging'],
    ['toggle-subscriber-updates', 'simulated resource updates'],
  ])('current: %s says it needs a session instead of "Started … for session undefined"', async (name, feature) => {
    await using http = await serve('current');
    const client = await http.connect();
    const result = await client.callTool({ name, arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(new RegExp(`^this server runs --stateless: ${feature} .*needs a session`));
  });

  it('current: resources/subscribe is refused with the reason', async () => {
    await using http = await serve('current');
    const client = await http.connect();
    await expect(client.subscribeResource({ uri: 'demo://resource/static/document/features.md' })).rejects.toThrow(
      'this server runs --stateless: subscriptions need a session or a 2026 listen stream',
    );
  });

  it('current: a task tool says it needs a session instead of "not found"', async () => {
    await using http = await serve('current');
    const client = await http.connect();
    const result = await client.callTool({ name: 'simulate-research-query', arguments: { topic: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^this server runs --stateless: simulate-research-query \(it runs as a task\) needs a session/);
  });

  it('legacy: sampleLLM says the capabilities from initialize are not kept, not that the client did not declare them', async () => {
    await using http = await serve('legacy');
    const client = await http.connect({ capabilities: { sampling: {} } });
    // The legacy profile answers a refused call as the reference did: a JSON-RPC error.
    await expect(client.callTool({ name: 'sampleLLM', arguments: { prompt: 'hi' } })).rejects.toThrow(
      "this server runs --stateless: the client's capabilities from initialize are not kept; sampling needs a session or a 2026 request",
    );
  });
});
