import { type RequestExtra, ToolError } from '@mcpkit/protocol-core';
import { type ElicitRequestFormParams, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ConformanceSession } from '../session.js';

/**
 * Throws a `ToolError` naming the capability when this session's client did not declare it, so the
 * model reads why instead of the SDK's internal "Client does not support …" error.
 */
export function requireClientCapability(session: ConformanceSession, capability: 'sampling' | 'elicitation'): void {
  if (session.server.server.getClientCapabilities()?.[capability] === undefined) {
    throw new ToolError(`The client does not support ${capability}: it did not declare the "${capability}" capability in initialize`);
  }
}

/**
 * Sends a form-mode `elicitation/create` on the call's own stream and describes the answer as the suite's
 * fixture does: `<prefix>: action=<accept|decline|cancel>, content=<JSON of what the user entered>`.
 */
export async function elicitForm(
  session: ConformanceSession,
  extra: RequestExtra,
  params: Omit<ElicitRequestFormParams, 'mode'>,
  prefix: string,
): Promise<string> {
  requireClientCapability(session, 'elicitation');
  const result = await extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
  return `${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
}
