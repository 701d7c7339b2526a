import { setRawRequestHandler, ToolError } from '@mcpkit/protocol-core';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { LegacySession } from '../session.js';
import { tools } from './index.js';
import type { AnyLegacyTool } from './types.js';

/** A tool as `tools/list` shows it: the reference's object, plus our `title` and annotations. */
function toWire(tool: AnyLegacyTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** zod issues as the SDK's `McpServer` words them: `<message> at <path>`, one per line. */
function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.message} at ${issue.path.join('.')}` : issue.message)).join('\n');
}

/**
 * An error the client answered one of our requests with (a refused sampling request, a timeout), as it
 * came: the SDK's `McpError` prefixes `MCP error <code>: ` to the message, and the SDK would prefix it again
 * on the way out.
 */
function asReceived(error: McpError): Error {
  const prefix = `MCP error ${error.code}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return Object.assign(new Error(message), { code: error.code, ...(error.data !== undefined ? { data: error.data } : {}) });
}

/**
 * `tools/list` and `tools/call` as the reference's low-level handlers answer them. Every failure is a
 * JSON-RPC error, as in the reference: code -32603 with the reference's text (`Unknown tool: <name>`,
 * `Error fetching file …`), a readable one where the reference sent zod 3's issue dump (invalid arguments)
 * or a client's bare "Method not found" (sampling or elicitation the client lacks). An error the client
 * sent back (a refused sampling request) keeps its code. Anything unexpected is logged, and the client
 * gets a text without internals.
 */
export function setToolHandlers(session: LegacySession): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const logger = session.config.logger;

  setRawRequestHandler(session.server, ListToolsRequestSchema, async () => {
    const capabilities = session.clientCapabilities();
    return { tools: tools.filter((tool) => !tool.listedFor || capabilities[tool.listedFor]).map(toWire) };
  });

  setRawRequestHandler(session.server, CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    if (!tool) throw new ToolError(`Unknown tool: ${name}`);
    // `arguments` may be omitted (the spec allows it; the reference's zod then failed with "Required").
    const parsed = tool.args.safeParse(args ?? {});
    if (!parsed.success) {
      throw new ToolError(`Input validation error: Invalid arguments for tool ${name}: ${formatIssues(parsed.error)}`);
    }
    try {
      return await tool.call(parsed.data, session, extra);
    } catch (error) {
      if (error instanceof McpError) throw asReceived(error);
      if (error instanceof ToolError || extra.signal.aborted || session.closed.aborted) throw error;
      logger.error(`Tool ${name} failed unexpectedly:`, error);
      throw new Error(`Tool ${name} failed unexpectedly; the server log has the details.`);
    }
  });
}
