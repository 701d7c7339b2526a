/**
 * What a session's server tells an observer of its traffic (the CLI's background warm-up, ./warmup.ts): that
 * the session opened, that a message came in (`notifications/initialized`, `tools/list`), that a tool call
 * starts and ends. The SDK has no hook for "a message arrived", so these are taken where this server's own
 * code runs: the server's `oninitialized`, the rendering of an input schema (which the SDK does on every
 * `tools/list`) and the tool handlers. Nothing of what clients see changes.
 */
import type { AnyToolDefinition } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/server';
import type { GitContext } from './engine/context.js';

export interface ServerActivity {
  /** A session's server was built (its opening message arrived), serving `tools` as registered. */
  opened(tools: ReadonlyArray<AnyToolDefinition<GitContext>>): void;
  /** A message of some session was handled. */
  seen(): void;
  /** A tool call starts; the function returned is called when it ends. */
  callStarted(): () => void;
}

/** `tool` whose calls are reported to `activity` (started, ended). */
function withCallReport(tool: AnyToolDefinition<GitContext>, activity: ServerActivity): AnyToolDefinition<GitContext> {
  const handler = tool.handler;
  return {
    ...tool,
    handler: async (args, ctx, extra) => {
      const ended = activity.callStarted();
      try {
        return await handler(args, ctx, extra);
      } finally {
        ended();
      }
    },
  };
}

/**
 * `tool` whose listing reports a `tools/list`: its input schema object (a copy made for this server by
 * `withReferenceListing`, so changing it changes no exported schema) tells `activity` when it is rendered.
 */
function withListingReport(tool: AnyToolDefinition<GitContext>, activity: ServerActivity): AnyToolDefinition<GitContext> {
  const input = tool.input as { '~standard'?: { jsonSchema?: { input: (o: unknown) => unknown; output: (o: unknown) => unknown } } };
  const standard = input['~standard'];
  const render = standard?.jsonSchema;
  if (!standard || !render) return tool;
  input['~standard'] = {
    ...standard,
    jsonSchema: {
      input: (options) => {
        activity.seen();
        return render.input(options);
      },
      output: render.output,
    },
  };
  return tool;
}

/**
 * `tools` reporting to `activity` (every call; `tools/list` through the first tool's schema), and `server`
 * reporting `notifications/initialized`. Call it with the tools exactly as they are registered.
 */
export function reportActivity(
  server: McpServer,
  tools: ReadonlyArray<AnyToolDefinition<GitContext>>,
  activity: ServerActivity,
): AnyToolDefinition<GitContext>[] {
  server.server.oninitialized = () => activity.seen();
  const reported = tools.map((tool, i) => {
    const called = withCallReport(tool, activity);
    return i === 0 ? withListingReport(called, activity) : called;
  });
  activity.opened(reported);
  return reported;
}
