import {
  type RequestContext,
  servesStatelessRequest,
  statelessCapabilities,
  ToolError,
  type ToolResult,
  textResult,
} from '@mcpkit/protocol-core';
import type { ElicitRequestFormParams, InputRequiredResult } from '@modelcontextprotocol/server';
import type { ConformanceSession } from '../session.js';

/**
 * Throws a `ToolError` naming the capability when the client did not declare it (in `initialize`, or in a
 * 2026-07-28 request's `_meta`), so the model reads why instead of the SDK's internal error.
 */
export function requireClientCapability(session: ConformanceSession, capability: 'sampling' | 'elicitation', extra: RequestContext): void {
  if (servesStatelessRequest(session.server)) throw new ToolError(statelessCapabilities(capability));
  if (session.input.capabilities(extra)[capability] === undefined) {
    const where = session.input.modern() ? "in this request's _meta" : 'in initialize';
    throw new ToolError(`The client does not support ${capability}: it did not declare the "${capability}" capability ${where}`);
  }
}

/**
 * Asks a form-mode `elicitation/create` (on the call's own stream in the 2025 era, as an `input_required` round in
 * 2026-07-28) and describes the answer as the suite's fixture does:
 * `<prefix>: action=<accept|decline|cancel>, content=<JSON of what the user entered>`.
 */
export async function elicitForm(
  session: ConformanceSession,
  extra: RequestContext,
  tool: string,
  params: Omit<ElicitRequestFormParams, 'mode'>,
  prefix: string,
): Promise<ToolResult | InputRequiredResult> {
  requireClientCapability(session, 'elicitation', extra);
  const input = await session.input.ask(extra, tool, params, { form: { method: 'elicitation/create', params } });
  if ('inputRequired' in input) return input.inputRequired;
  const result = input.answers.form;
  return textResult(`${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
}
