import { defineTool } from '@mcpkit/protocol-core';
import { type CallToolResult, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type CurrentSession, clientInputOf } from '../session.js';
import { ELICITATION_TIMEOUT_MS } from './triggerElicitationRequest.js';

/** Error-path markers one session may leave behind (clients that never retry); the oldest go first. */
const MAX_PENDING_PREREQUISITES = 1000;

/** Registered only when the client declares `elicitation.url`. */
export const triggerUrlElicitation = defineTool({
  name: 'trigger-url-elicitation',
  title: 'Trigger URL Elicitation Tool',
  description:
    'Trigger a URL elicitation so the client can direct the user to a browser flow. ' +
    "Supports two mechanisms: the request path (elicitation/create, default) which awaits the user's " +
    'response, and the error path (UrlElicitationRequiredError, -32042) which signals the client ' +
    'to handle URL elicitation via the error response. Set errorPath=true to use the error path.',
  input: {
    url: z.string().url().describe('The URL the user should open'),
    message: z
      .string()
      .default('Please open the link to complete this action.')
      .describe('Message shown to the user before opening the URL'),
    elicitationId: z.string().optional().describe('Optional explicit elicitation ID. Defaults to a random UUID.'),
    errorPath: z
      .boolean()
      .default(false)
      .describe(
        'Controls which elicitation mechanism is used. ' +
          'When false (default), sends an elicitation/create request (request path). ' +
          'When true, throws a UrlElicitationRequiredError (MCP error code -32042) so the client handles ' +
          'the URL elicitation via the error path rather than waiting for a response. ' +
          'To clear the error, satisfy the prerequisite and retry this call with the same arguments; the ' +
          'retry ignores errorPath and proceeds, so the client does not loop on the same error.',
      ),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (args, session: CurrentSession, extra) => {
    const { url, message, elicitationId: requested, errorPath } = args;
    const { urlElicitationPrerequisites: pending } = session;
    const input = clientInputOf(session);
    const elicitationId = requested ?? crypto.randomUUID();
    // A retry resends the same arguments (not the prerequisite's generated id), so the one-shot marker
    // is keyed on them. The markers live in this session only.
    const key = `${extra.sessionId ?? 'default'}\u0000${url}\u0000${requested ?? ''}`;
    // 2026-07-28 has no -32042 error: both paths are one `input_required` round with a URL elicitation.
    if (errorPath && !input.modern() && !pending.delete(key)) {
      if (pending.size >= MAX_PENDING_PREREQUISITES) pending.delete(pending.values().next().value!);
      pending.add(key);
      // The prerequisite points elsewhere than `url`, so completing it and retrying cannot loop.
      throw new UrlElicitationRequiredError(
        [
          {
            mode: 'url',
            url: 'https://modelcontextprotocol.io',
            message: 'Open this link to satisfy the prerequisite, then retry the request.',
            elicitationId: crypto.randomUUID(),
          },
        ],
        'This request requires browser-based authorization.',
      );
    }
    const asked = await input.ask(
      extra,
      'trigger-url-elicitation',
      args,
      { url: { method: 'elicitation/create', params: { mode: 'url', url, message, elicitationId } } },
      { timeout: ELICITATION_TIMEOUT_MS },
    );
    if ('inputRequired' in asked) return asked.inputRequired;
    const result = asked.answers.url;
    const content: CallToolResult['content'] = [];
    if (result.action === 'accept') {
      content.push({ type: 'text', text: `✅ User completed the URL elicitation flow.\nElicitation ID: ${elicitationId}\nURL: ${url}` });
    } else if (result.action === 'decline') {
      content.push({ type: 'text', text: `❌ User declined to open the URL (Elicitation ID: ${elicitationId}).` });
    } else if (result.action === 'cancel') {
      content.push({ type: 'text', text: `⚠️ User cancelled the URL elicitation (Elicitation ID: ${elicitationId}).` });
    }
    content.push({ type: 'text', text: `\nRaw result: ${JSON.stringify(result, null, 2)}` });
    return { content };
  },
});
