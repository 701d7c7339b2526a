import { defineTool, type RequestContext, textResult } from '@mcpkit/protocol-core';
import type { ConformanceSession } from '../session.js';

/**
 * The triggers of the `server-stateless` scenario's listen checks (SEP-2575, 2026-07-28): it opens a
 * `subscriptions/listen` stream, calls one of these, and expects the matching `*_list_changed` notification on the
 * stream (a SHOULD). This profile's lists never change, so the tools announce a change, as the suite's own fixture
 * does: over HTTP a 2026-07-28 request's server lives for that request, so the announcement goes on the process's
 * listen bus (`EverythingOptions.listChanges`, which the CLI also hands the runner); over stdio the SDK routes the
 * server's own notification onto the connection's listen streams, and a 2025-era session gets it unsolicited.
 */
function announce(session: ConformanceSession, extra: RequestContext, list: 'tools' | 'prompts'): void {
  if (session.input.modern() && extra.http !== undefined) {
    if (list === 'tools') session.listChanges?.toolsChanged();
    else session.listChanges?.promptsChanged();
    return;
  }
  if (list === 'tools') session.server.sendToolListChanged();
  else session.server.sendPromptListChanged();
}

const ANNOUNCES = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const testTriggerToolChange = defineTool({
  name: 'test_trigger_tool_change',
  title: 'Trigger Tool List Change',
  description: 'Listen diagnostic (SEP-2575): announces notifications/tools/list_changed to the open subscriptions/listen streams',
  input: {},
  annotations: ANNOUNCES,
  handler: (_args, session: ConformanceSession, extra) => {
    announce(session, extra, 'tools');
    return textResult('tools_list_changed published');
  },
});

const testTriggerPromptChange = defineTool({
  name: 'test_trigger_prompt_change',
  title: 'Trigger Prompt List Change',
  description: 'Listen diagnostic (SEP-2575): announces notifications/prompts/list_changed to the open subscriptions/listen streams',
  input: {},
  annotations: ANNOUNCES,
  handler: (_args, session: ConformanceSession, extra) => {
    announce(session, extra, 'prompts');
    return textResult('prompts_list_changed published');
  },
});

export const listenDiagnosticTools = [testTriggerToolChange, testTriggerPromptChange] as const;
