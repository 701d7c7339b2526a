// Both protocol eras from one server, in-process: the v2 client (`@modelcontextprotocol/client`) in each
// negotiation mode. `legacy` gets the 2025-11-25 `initialize` handshake and a session; `auto` probes
// `server/discover` and lands on 2026-07-28, as does the client pinned to it (stateless: one server per request).
import { connectV2InMemory, invalidArgumentsResult, V2_MODES } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { create$PASCAL$Server } from '../src/server.js';

const ERA = { legacy: 'legacy', auto: 'modern', '2026-07-28': 'modern' } as const;
const VERSION = { legacy: '2025-11-25', auto: '2026-07-28', '2026-07-28': '2026-07-28' } as const;

describe('the v2 client, every negotiation mode', () => {
  for (const mode of V2_MODES) {
    it(`${mode}: speaks ${VERSION[mode]}, lists echo and calls it`, async () => {
      await using pair = await connectV2InMemory(() => create$PASCAL$Server({ maxMessageLength: 5 }), { mode });
      expect(pair.client.getProtocolEra()).toBe(ERA[mode]);
      expect(pair.client.getNegotiatedProtocolVersion()).toBe(VERSION[mode]);
      expect(pair.client.getServerVersion()).toMatchObject({ name: '$NAME$-server', title: '$TITLE$' });
      const { tools } = await pair.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo']);
      const res = await pair.client.callTool({ name: 'echo', arguments: { message: 'hi', times: 2 } });
      expect(res.structuredContent).toEqual({ text: 'hi hi', characters: 5 });
      // The same texts in both eras: a ToolError, and invalid arguments.
      const tooLong = await pair.client.callTool({ name: 'echo', arguments: { message: 'too long' } });
      expect(tooLong).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'message is 8 characters long; this server accepts at most 5' }],
      });
      const invalid = await pair.client.callTool({ name: 'echo', arguments: { message: 'x', times: 11 } });
      expect(invalid).toMatchObject(invalidArgumentsResult('echo', 'times: Too big: expected number to be <=10'));
    });
  }
});
