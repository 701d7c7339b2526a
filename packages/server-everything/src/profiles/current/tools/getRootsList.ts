import { defineTool, textResult } from '@mcpkit/protocol-core';
import type { Root } from '@modelcontextprotocol/server';
import { type CurrentSession, clientInputOf } from '../session.js';

/** Registered only when the client declares `roots`. */
export const getRootsList = defineTool({
  name: 'get-roots-list',
  title: 'Get Roots List Tool',
  description:
    "Lists the current MCP roots provided by the client. Demonstrates the roots protocol capability even though this server doesn't access files.",
  input: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (args, session: CurrentSession, extra) => {
    // A 2025-era session keeps the roots (asked once, again on `notifications/roots/list_changed`); a 2026-07-28
    // request has no session, so the call asks for them (`input_required`) every time.
    const input = clientInputOf(session);
    let current: Root[] | undefined;
    if (input.modern()) {
      const asked = await input.ask(extra, 'get-roots-list', args, { roots: { method: 'roots/list' } });
      if ('inputRequired' in asked) return asked.inputRequired;
      current = asked.answers.roots.roots;
    } else {
      current = await session.roots.sync(extra);
    }
    if (!current || current.length === 0) {
      return textResult(
        'The client supports roots but no roots are currently configured.\n\n' +
          'This could mean:\n' +
          "1. The client hasn't provided any roots yet\n" +
          '2. The client provided an empty roots list\n' +
          '3. The roots configuration is still being loaded',
      );
    }
    const list = current.map((root, index) => `${index + 1}. ${root.name || 'Unnamed Root'}\n   URI: ${root.uri}`).join('\n\n');
    return textResult(
      `Current MCP Roots (${current.length} total):\n\n${list}\n\n` +
        "Note: This server demonstrates the roots protocol capability but doesn't actually access files. " +
        'The roots are provided by the MCP client and can be used by servers that need file system access.',
    );
  },
});
