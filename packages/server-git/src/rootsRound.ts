/**
 * The client's roots on a 2026-07-28 request. That revision has no server→client requests (`roots/list`
 * cannot be sent while serving a call) and no session to keep the roots in, so a tool call of a server
 * started without `--repository` asks for them with a multi-round-trip input request: the first answer is
 * `input_required` with an embedded `roots/list`, the client retries the call with the roots, and those hold
 * for that call only (so these tools offer no task execution: a task cannot answer with that round). 2025-era
 * calls are unchanged: `roots/list` once per session, again after
 * `notifications/roots/list_changed` (./engine/roots.ts).
 */
import { type AnyToolDefinition, type Logger, type RequestContext, ToolError } from '@mcpkit/protocol-core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  inputRequired,
  inputResponse,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import type { GitContext } from './engine/context.js';
import { givenRoots, NO_ROOTS_MESSAGE, realRoots } from './engine/roots.js';

/** The key of the embedded `roots/list` in `inputRequests` / `inputResponses`. */
const ROOTS_INPUT_KEY = 'roots';

/**
 * The request's 2026-07-28 envelope (the reserved `_meta` keys, which the SDK lifts into
 * `ctx.mcpReq.envelope`), or undefined for a 2025-era request (which carries none).
 */
function modernEnvelope(extra: RequestContext): Record<string, unknown> | undefined {
  const envelope = extra.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[PROTOCOL_VERSION_META_KEY] === undefined ? undefined : envelope;
}

/** Roots as the client sent them (untrusted): only entries with a string `uri` count. */
function urisOf(roots: unknown): { uri: string }[] {
  if (!Array.isArray(roots)) return [];
  return roots.filter((r): r is { uri: string } => typeof r === 'object' && r !== null && typeof r.uri === 'string');
}

/**
 * `tool` whose calls on 2026-07-28 requests get the client's roots by an input request when the server
 * takes its roots from the client; with `--repository`, or on a 2025-era request, it runs as it is.
 */
export function withRootsRound(tool: AnyToolDefinition<GitContext>, logger: Logger): AnyToolDefinition<GitContext> {
  // Without task execution: a task's result cannot be this call's input_required round for the roots.
  const { handler, task: _noTask, ...rest } = tool;
  return {
    ...rest,
    handler: async (args, ctx: GitContext, extra: RequestContext) => {
      const envelope = ctx.roots.source === 'client' ? modernEnvelope(extra) : undefined;
      if (!envelope) return handler(args, ctx, extra);
      const answer = inputResponse(extra.mcpReq.inputResponses, ROOTS_INPUT_KEY);
      if (answer.kind === 'roots') {
        const roots = givenRoots(await realRoots(urisOf(answer.roots), logger));
        return handler(args, { ...ctx, roots }, extra);
      }
      const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
      if (!capabilities?.roots) throw new ToolError(NO_ROOTS_MESSAGE);
      // An input_required result, which the SDK sends as it is (the tool result type does not name it).
      return inputRequired({ inputRequests: { [ROOTS_INPUT_KEY]: inputRequired.listRoots() } }) as never;
    },
  };
}
