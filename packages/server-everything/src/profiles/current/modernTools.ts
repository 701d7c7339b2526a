/**
 * The `current` profile's capability-gated tools for a 2026-07-28 client (stateless: no `initialize`, so no
 * `notifications/initialized` to register them on). The client declares its capabilities in each request's
 * `_meta`, so the server registers every gated tool up front and lists each one only to a request whose `_meta`
 * declares what the tool needs: the same tools, in the same order, as a 2025-11-25 session with the same
 * capabilities sees after `initialized`. A stdio connection keeps one server for all its requests, so the choice
 * is made per `tools/list` request, not per server.
 *
 * Calling a gated tool without the capability: the tool asks for the input it needs (`input_required`), and the
 * SDK refuses that with -32021 (missing client capability) before anything reaches the client, as 2026-07-28 says.
 * The `legacyOnly` tools (`trigger-*-async`: they poll a task the client runs, requested server→client) are not
 * registered: no 2026-07-28 client can run them.
 */

import { registerTools } from '@mcpkit/protocol-core';
import type { ClientCapabilities, McpServer, RegisteredTool, Tool } from '@modelcontextprotocol/server';
import { declaredCapabilities } from '../../shared/clientInput.js';
import { gatedTools } from './tools/index.js';
import type { TaskSession } from './tools/simulateResearchQuery.js';

/** One `tools/list` entry source: a registered tool and, for a gated one, what the client must declare. */
interface Listed {
  name: string;
  registered: RegisteredTool;
  when?: (client: ClientCapabilities) => boolean;
}

/**
 * The listing of one registered tool, field for field as `McpServer`'s own `tools/list` writes it (the input
 * schema as the SDK renders and caches it for the tool, the output schema as it advertises it).
 */
function listEntry(server: McpServer, { name, registered }: Listed): Tool {
  return {
    name,
    title: registered.title,
    description: registered.description,
    inputSchema: server.toolInputSchemaJson(name) as Tool['inputSchema'],
    annotations: registered.annotations,
    icons: registered.icons,
    execution: registered.execution,
    _meta: registered._meta,
    ...(registered.outputSchema ? { outputSchema: registered.outputSchemaJson as Tool['outputSchema'] } : {}),
  };
}

/**
 * Registers the gated tools (after `base`, the tools every client gets, as `registerTools` returned them) and
 * answers `tools/list` per request. Call once, after every tool is registered, on a server serving 2026-07-28.
 */
export function serveModernTools(session: TaskSession, base: ReadonlyArray<{ name: string; registered: RegisteredTool }>): void {
  const { server, logger } = session;
  const listed: Listed[] = [...base];
  for (const gated of gatedTools) {
    if (gated.legacyOnly) continue;
    if ('tool' in gated) {
      const [registered] = registerTools(server, session, [gated.tool], { logger });
      listed.push({ name: gated.tool.name, registered: registered as RegisteredTool, when: gated.when });
    } else {
      listed.push({ name: gated.name, registered: gated.register(session), when: gated.when });
    }
  }
  // Replaces the listing `McpServer` installed (it cannot see a request's `_meta`); `tools/call` stays the SDK's.
  server.server.setRequestHandler('tools/list', (_request, ctx) => {
    const client = declaredCapabilities(server, ctx);
    const visible = listed.filter((tool) => tool.registered.enabled && (tool.when === undefined || tool.when(client)));
    return { tools: visible.map((tool) => listEntry(server, tool)) };
  });
}
