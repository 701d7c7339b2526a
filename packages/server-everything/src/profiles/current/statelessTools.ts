/**
 * The capability-gated tools on a `--stateless` 2025 request. A session registers them on `notifications/initialized`,
 * once the client's capabilities are known; a stateless request's server never sees that `initialize`, so they
 * would be missing ("Tool … not found") or would claim the client "did not declare" what it did. Each is
 * registered here as what it is, answering why it cannot run: the capabilities are not kept, or (the task tool)
 * a task needs a session to live in.
 */
import { defineTool, type Logger, registerTools, statelessCapabilities, statelessSession, ToolError } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/server';
import type { GatedTool } from './tools/index.js';

const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

function refusal(gated: GatedTool) {
  if ('tool' in gated) {
    const { name, title, description, annotations } = gated.tool;
    return { name, title, description, annotations, why: statelessCapabilities(name) };
  }
  return {
    name: gated.name,
    title: gated.name,
    description: 'Runs as a 2025-11-25 task.',
    annotations: ANNOTATIONS,
    why: statelessSession(`${gated.name} (it runs as a task)`),
  };
}

export function registerStatelessGatedTools(server: McpServer, gated: readonly GatedTool[], logger: Logger): void {
  const tools = gated.map((entry) => {
    const { why, ...tool } = refusal(entry);
    return defineTool({
      ...tool,
      input: {},
      handler: () => {
        throw new ToolError(why);
      },
    });
  });
  registerTools(server, {}, tools, { logger });
}
