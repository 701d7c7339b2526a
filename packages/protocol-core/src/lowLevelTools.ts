/**
 * `registerTools(server, ctx, tools, { wire: 'low-level' })`: the same tool definitions, answered the way a
 * reference server built on the SDK's low-level `Server` with hand-written `tools/list` and `tools/call`
 * handlers answers them, for a drop-in replacement of one. What differs from the default (`McpServer`) wire:
 *
 * - `tools/list`: `{ name, title, description, inputSchema, outputSchema?, annotations }` per tool, in
 *   registration order, no `execution`; `listing.inputSchema` / `listing.outputSchema`, when given, are
 *   listed exactly as written (key order included) instead of the SDK's rendering of `input` / `output`; a
 *   tool with `listing.listedFor` is listed only to clients that declared that capability (it stays
 *   callable by name).
 * - `tools/call`: `output` is not validated; omitted `arguments` count as `{}`. The result is sent as SDK v2
 *   encodes every `tools/call` result, low-level or not: validated with the era's `CallToolResult` schema,
 *   fields it does not name (an embedded resource's `name`) dropped. v1 let it through untouched; v2 has no
 *   public way to (a plain `Server` wraps `tools/call` the same way), see `rawHandlers.ts`.
 * - Every failure is a JSON-RPC error, not an `isError` result: an unknown tool is -32603
 *   `Unknown tool: <name>`; invalid arguments are -32603 `Input validation error: Invalid arguments for
 *   tool <name>: <problem> at <path>` (one line per problem); a `ToolError` is -32603 with its message; an
 *   error the client answered one of the handler's requests with (an `McpError`: a refused sampling
 *   request) keeps its code and its message as the client sent it; anything else is logged and the client
 *   gets -32603 `Tool <name> failed unexpectedly; the server log has the details.`
 *
 * Unchanged: an answer over `MAX_RESULT_BYTES` is an `isError` result saying so (the `run` given here does
 * that), and a cancelled call gets no answer.
 */
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/core';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  type McpServer,
  ProtocolError,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { hideUnexpected, ToolError } from './errors.js';
import type { Logger } from './logger.js';
import { asObject } from './objectSchema.js';
import { setRawRequestHandler } from './rawHandlers.js';
import type { RequestContext } from './requestContext.js';

/** A JSON Schema object, as written. */
export type JsonSchemaObject = { [key: string]: unknown };

/** How a tool registered with `wire: 'low-level'` is listed, where that differs from the default. */
export interface ToolListing {
  /** Listed instead of the SDK's rendering of `input` (e.g. a reference's `zod-to-json-schema` output). */
  inputSchema?: JsonSchemaObject;
  /** Listed instead of the SDK's rendering of `output`. */
  outputSchema?: JsonSchemaObject;
  /**
   * Listed only to clients that declared this capability (2025-11-25: in `initialize`; 2026-07-28: in the
   * `tools/list` request's `_meta`); still callable by name.
   */
  listedFor?: keyof ClientCapabilities;
}

type Extra = RequestContext;

/** The parts of a `ToolDefinition` this wire reads. */
interface LowLevelToolSource {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape | z.ZodObject;
  output?: z.ZodRawShape;
  annotations: Omit<ToolAnnotations, 'title'>;
  listing?: ToolListing;
}

export interface LowLevelTool {
  tool: LowLevelToolSource;
  /** Runs the handler with parsed arguments (an oversized answer already replaced); 2026-07-28: may ask for input. */
  run: (args: unknown, extra: Extra) => Promise<CallToolResult | InputRequiredResult>;
}

interface Served {
  tool: LowLevelToolSource;
  args: z.ZodType;
  /** Its `tools/list` entry, made on the first listing. */
  entry?: JsonSchemaObject;
  run: LowLevelTool['run'];
  logger: Logger;
}

/** The tools served so far, per server: `registerTools` may be called more than once. */
const servedTools = new WeakMap<McpServer, Map<string, Served>>();

function render(schema: z.ZodRawShape | z.ZodObject, pipeStrategy: 'input' | 'output'): JsonSchemaObject {
  // v1 rendered draft-07 through the SDK's zod-to-json-schema compat layer; v2 has no such export, so
  // zod 4's own renderer is used, with the draft the v1 SDK listed (reference clients compare it).
  return z.toJSONSchema(asObject(schema), { target: 'draft-7', io: pipeStrategy, unrepresentable: 'any' }) as JsonSchemaObject;
}

function listEntry(tool: LowLevelToolSource): JsonSchemaObject {
  const { listing = {} } = tool;
  const outputSchema = listing.outputSchema ?? (tool.output ? render(tool.output, 'output') : undefined);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: listing.inputSchema ?? render(tool.input, 'input'),
    ...(outputSchema ? { outputSchema } : {}),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** zod issues as `<message> at <path>`, one per line. */
function issueLines(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.message} at ${issue.path.join('.')}` : issue.message)).join('\n');
}

/**
 * An error the client answered one of the handler's requests with, as it came (code, message and data):
 * v2's `ProtocolError` keeps the client's message unprefixed and the SDK sends it on as it is, so a v1
 * client's refusal (`MCP error -32600: User rejected sampling request`) reaches the wire as the reference
 * forwarded it.
 */
function asReceived(error: ProtocolError): Error {
  return Object.assign(new Error(error.message), { code: error.code, ...(error.data !== undefined ? { data: error.data } : {}) });
}

/**
 * What the client of this request declared: 2026-07-28 requests carry it in their `_meta` (there is no
 * `initialize`); a 2025-era session declared it in `initialize`.
 */
function declaredCapabilities(server: McpServer, extra: Extra): ClientCapabilities {
  const envelope = extra.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return declared ?? server.server.getClientCapabilities() ?? {};
}

function installHandlers(server: McpServer, served: Map<string, Served>): void {
  // Fails loudly if `McpServer.registerTool` (or anything else) already answers tools.
  server.server.assertCanSetRequestHandler('tools/list');
  server.server.assertCanSetRequestHandler('tools/call');
  // Merged into what the server declares (a `listChanged` there stays); like `McpServer.registerTool`, before connecting.
  server.server.registerCapabilities({ tools: {} });

  setRawRequestHandler(server, ListToolsRequestSchema, async (_request, extra) => {
    const capabilities = declaredCapabilities(server, extra);
    const listed = [...served.values()].filter(({ tool }) => !tool.listing?.listedFor || capabilities[tool.listing.listedFor]);
    return { tools: listed.map((item) => (item.entry ??= listEntry(item.tool))) };
  });

  setRawRequestHandler(server, CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = served.get(name);
    if (!tool) throw new ToolError(`Unknown tool: ${name}`);
    const parsed = tool.args.safeParse(args ?? {});
    if (!parsed.success) throw new ToolError(`Input validation error: Invalid arguments for tool ${name}: ${issueLines(parsed.error)}`);
    try {
      return await tool.run(parsed.data, extra);
    } catch (error) {
      if (error instanceof ProtocolError) throw asReceived(error);
      if (error instanceof ToolError) throw error;
      if (extra.mcpReq.signal.aborted) {
        // Cancelled, or the session closed: the SDK sends nothing for this request.
        tool.logger.debug(`Tool ${name} cancelled by the client`);
        throw error;
      }
      throw new Error(hideUnexpected('Tool', name, error, tool.logger));
    }
  });
}

/** Serves `tools` (after any served before on this server) with low-level `tools/list` and `tools/call` handlers. */
export function serveLowLevelTools(server: McpServer, tools: ReadonlyArray<LowLevelTool>, logger: Logger): void {
  let served = servedTools.get(server);
  if (!served) {
    served = new Map();
    installHandlers(server, served);
    servedTools.set(server, served);
  }
  for (const { tool, run } of tools) {
    if (served.has(tool.name)) throw new Error(`Tool ${tool.name} is already registered`);
    served.set(tool.name, { tool, args: asObject(tool.input), run, logger });
  }
}
