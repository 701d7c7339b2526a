// The v2-client test helpers: each mode reaches the era it names, in-process and over HTTP.
import { describe, expect, it } from 'vitest';
import { connectV2InMemory, startHttp, V2_MODES } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';

const ERA = { legacy: 'legacy', auto: 'modern', '2026-07-28': 'modern' } as const;

describe('v2 client helpers', () => {
  for (const mode of V2_MODES) {
    it(`connectV2InMemory in ${mode} mode lists and calls a tool in the ${ERA[mode]} era`, async () => {
      await using pair = await connectV2InMemory(() => createDemoServer(), { mode });
      expect(pair.client.getProtocolEra()).toBe(ERA[mode]);
      const { tools } = await pair.client.listTools();
      expect(tools.map((t) => t.name)).toContain('count');
      const result = await pair.client.callTool({ name: 'count', arguments: { marker: mode } });
      expect(result.structuredContent).toEqual({ marker: mode, calls: 1 });
    });
    it(`startHttp().connect in ${mode} mode lists and calls a tool in the ${ERA[mode]} era`, async () => {
      await using http = await startHttp({ createServer: () => createDemoServer() });
      const client = await http.connect({ mode });
      expect(client.getProtocolEra()).toBe(ERA[mode]);
      expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'legacy' ? '2025-11-25' : '2026-07-28');
      const result = await client.callTool({ name: 'count', arguments: { marker: mode } });
      expect(result.structuredContent).toEqual({ marker: mode, calls: 1 });
      // 2025 sessions are the runner's; 2026 requests are stateless.
      expect(http.running.sessionCount()).toBe(mode === 'legacy' ? 1 : 0);
    });
  }
});
