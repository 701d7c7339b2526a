import {
  type CacheHint,
  type GetPromptResult,
  type InputRequiredResult,
  McpServer,
  type McpServerOptions,
  ProtocolError,
  type ReadResourceResult,
  type RegisteredTool,
  ResourceTemplate,
  type ServerContext,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { capAnswer, capToolResult } from './answerCap.js';
import { hideUnexpected, ToolError } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import { serveLowLevelTools, type ToolListing } from './lowLevelTools.js';
import { asObject, toolSchemas } from './objectSchema.js';
import type { RequestContext } from './requestContext.js';
import { errorResult, type ToolResult } from './results.js';
import { serverLogger, setServerLogger } from './serverLogger.js';
import type { TasksExtension } from './tasksExtension/extension.js';
import { type ServedToolCall, serveToolCalls } from './tasksExtension/toolCalls.js';
import type { TaskSupport } from './tasksExtension/types.js';

export type { RequestContext };

/** The four behaviour hints, all required: omitting one means "dangerous" to clients (spec defaults). */
export type Annotations = Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>>;

type Infer<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;
type OutputOf<S extends z.ZodRawShape | undefined> = S extends z.ZodRawShape ? Infer<S> : Record<string, unknown>;

/** What a tool handler may answer: a result, or an `input_required` result (MRTR, 2026-07-28). */
type ToolAnswer<T = Record<string, unknown>> = ToolResult<T> | InputRequiredResult;

export interface ToolDefinition<Ctx, In extends z.ZodRawShape = z.ZodRawShape, Out extends z.ZodRawShape | undefined = undefined> {
  name: string;
  title: string;
  description: string;
  /**
   * The arguments: a zod shape, or a zod object of that shape where a shape cannot say it (`.strict()`, JSON
   * Schema metadata given with `.meta()`).
   */
  input: In | z.ZodObject<In, z.core.$ZodObjectConfig>;
  /** With `output`, results must carry `structuredContent` of this shape plus a text fallback. */
  output?: Out;
  annotations: Annotations;
  /**
   * The tool's answer, or (2026-07-28) an `input_required` result (`inputRequired(…)` from the SDK) asking the
   * client for input before it repeats the call; the SDK turns that into real requests for a 2025-era client.
   */
  handler: (args: Infer<In>, ctx: Ctx, extra: RequestContext) => ToolAnswer<OutputOf<Out>> | Promise<ToolAnswer<OutputOf<Out>>>;
  /**
   * How `tools/list` shows the tool under `wire: 'low-level'`, where a reference server's listing differs
   * from the SDK's rendering (its exact JSON Schemas, a capability the client must have declared). Only
   * that wire reads it; `registerTools` refuses it on the default one.
   */
  listing?: ToolListing;
  /**
   * Task execution (the tasks extension, `@mcpkit/protocol-core/tasks`), when registered with `{ tasks }`: a
   * request that declared the extension may get a task running the handler (`extra.task`); `optional` runs it
   * inline for one that did not, `required` refuses it (-32021).
   */
  task?: TaskSupport;
}

/** Declares a tool as plain data. Dependencies reach the handler as `ctx`. */
export function defineTool<Ctx, In extends z.ZodRawShape, Out extends z.ZodRawShape | undefined = undefined>(
  definition: ToolDefinition<Ctx, In, Out>,
): ToolDefinition<Ctx, In, Out> {
  return definition;
}

export interface RegisterOptions {
  /** Where unexpected failures are logged with their stack. */
  logger?: Logger;
}

export interface RegisterToolsOptions extends RegisterOptions {
  /**
   * How the tools are answered on the wire. `'mcp-server'` (the default): through the SDK's `McpServer`,
   * failures as `isError` results. `'low-level'`: as a reference server built on the SDK's low-level
   * `Server` with hand-written handlers answers, for a drop-in replacement of one: results as the SDK encodes them,
   * failures as JSON-RPC errors with that server's texts, `listing` applied (see `lowLevelTools.ts`).
   */
  wire?: 'mcp-server' | 'low-level';
  /** Runs the tools defined with `task` through the tasks extension (`new TasksExtension(store)`; default wire only). */
  tasks?: TasksExtension;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of tools has heterogeneous shapes.
export type AnyToolDefinition<Ctx> = ToolDefinition<Ctx, any, any>;

/** Runs a tool's handler; an answer over `MAX_RESULT_BYTES` is logged and replaced by an `isError` result saying so. */
async function answer<Ctx>(
  tool: AnyToolDefinition<Ctx>,
  ctx: Ctx,
  args: unknown,
  extra: RequestContext,
  logger: Logger,
): Promise<ToolAnswer> {
  return capToolResult(tool.name, await tool.handler(args as never, ctx, extra), logger) as ToolAnswer;
}

/**
 * Registers every tool of `tools` on `server`, in order (so `tools/list` is deterministic).
 * A `ToolError` becomes an `isError` result with its message; a protocol error (`McpError`) goes to the
 * SDK, which reports it with its code (`MCP error -32602: …`), or as a JSON-RPC error for the codes the
 * spec reserves for that; anything else is logged and the model gets a text without internals.
 * A result over `MAX_RESULT_BYTES` of JSON (which MCP clients would drop with the connection) is logged
 * and becomes an `isError` result giving its size and the limit.
 * With `wire: 'low-level'` the same definitions are answered as a low-level reference server answers them
 * (every failure a JSON-RPC error, results untouched, `listing` applied): see `lowLevelTools.ts`.
 * Returns the SDK's registered tools, in order (none with `wire: 'low-level'`, which the SDK does not list).
 */
export function registerTools<Ctx>(
  server: McpServer,
  ctx: Ctx,
  tools: ReadonlyArray<AnyToolDefinition<Ctx>>,
  { logger: given, wire = 'mcp-server', tasks }: RegisterToolsOptions = {},
): RegisteredTool[] {
  const logger = serverLogger(server, given);
  if (wire === 'low-level') {
    const run = (tool: AnyToolDefinition<Ctx>) => (args: unknown, extra: RequestContext) => answer(tool, ctx, args, extra, logger);
    serveLowLevelTools(
      server,
      tools.map((tool) => ({ tool, run: run(tool) })),
      logger,
    );
    return [];
  }
  // A task tool with an `output`: the SDK's `McpServer` would refuse its task answers (see tasksExtension/toolCalls.ts).
  const calls = tasks && tools.some((tool) => tool.task && tool.output) ? new Map<string, ServedToolCall>() : undefined;
  const registered = tools.map((tool) => {
    if (tool.task) tasks?.declare(tool.name, tool.task);
    if (tool.listing) throw new Error(`Tool ${tool.name}: \`listing\` needs registerTools(…, { wire: 'low-level' })`);
    const { input, output } = toolSchemas(tool);
    const run = async (args: unknown, context: ServerContext) => {
      const call = async (extra: RequestContext) => {
        try {
          return await answer(tool, ctx, args, extra, logger);
        } catch (error) {
          if (error instanceof ToolError) return errorResult(error.message);
          if (error instanceof ProtocolError) throw error;
          // The client cancelled the call: whatever the handler threw on the way out is expected, and the SDK
          // sends no answer for a cancelled request anyway.
          if (extra.mcpReq.signal.aborted) {
            logger.debug(`Tool ${tool.name} cancelled by the client`);
            return errorResult(`Tool ${tool.name} was cancelled.`);
          }
          return errorResult(hideUnexpected('Tool', tool.name, error, logger));
        }
      };
      return (tool.task && tasks ? tasks.callTool(tool.name, tool.task, context, call) : call(context)) as Promise<ToolAnswer>;
    };
    calls?.set(tool.name, { input, ...(output ? { output } : {}), run: run as ServedToolCall['run'] });
    return server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: input,
        ...(output ? { outputSchema: output } : {}),
        annotations: { title: tool.title, ...tool.annotations },
      },
      run,
    );
  });
  if (calls) serveToolCalls(server, calls);
  return registered;
}

export interface PromptDefinition<Ctx, Args extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** Prompt arguments are strings on the wire; use `z.string()` (optionally `.optional()`). */
  args: Args;
  /** The prompt, or (2026-07-28) an `input_required` result asking the client for input first (as a tool's). */
  handler: (args: Infer<Args>, ctx: Ctx, extra: RequestContext) => PromptAnswer | Promise<PromptAnswer>;
}

/** What a prompt handler may answer: the prompt, or an `input_required` result (MRTR, 2026-07-28). */
type PromptAnswer = GetPromptResult | InputRequiredResult;

export function definePrompt<Ctx, Args extends z.ZodRawShape>(definition: PromptDefinition<Ctx, Args>): PromptDefinition<Ctx, Args> {
  return definition;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of prompts has heterogeneous shapes.
export type AnyPromptDefinition<Ctx> = PromptDefinition<Ctx, any>;

/**
 * Registers prompts. A handler's `ToolError` becomes a JSON-RPC error carrying its message. A prompt
 * whose `args` is empty is listed without `arguments` (as the reference servers' argument-less prompts are).
 */
export function registerPrompts<Ctx>(
  server: McpServer,
  ctx: Ctx,
  prompts: ReadonlyArray<AnyPromptDefinition<Ctx>>,
  { logger: given }: RegisterOptions = {},
): void {
  const logger = serverLogger(server, given);
  for (const prompt of prompts) {
    const run = async (args: unknown, context: ServerContext) => {
      let result: PromptAnswer;
      try {
        result = await prompt.handler(args as never, ctx, context);
      } catch (error) {
        if (error instanceof ToolError || error instanceof ProtocolError) throw error;
        throw new Error(hideUnexpected('Prompt', prompt.name, error, logger));
      }
      return capAnswer('prompts/get', result, logger);
    };
    const { name, title, description } = prompt;
    if (Object.keys(prompt.args).length === 0) {
      // Without an argsSchema the SDK calls back with `extra` alone; its `registerPrompt` types miss that case.
      server.registerPrompt(name, { title, description }, ((context: ServerContext) => run({}, context)) as never);
    } else {
      server.registerPrompt(name, { title, description, argsSchema: asObject(prompt.args) }, run as never);
    }
  }
}

export interface ResourceDefinition<Ctx> {
  name: string;
  title: string;
  description: string;
  mimeType?: string;
  /** A fixed URI, or an RFC 6570 template such as `memory://entity/{name}`. */
  uri: string;
  /** For templates: the concrete resources to list (omit to list none). */
  list?: (ctx: Ctx, extra: RequestContext) => Promise<{ uri: string; name: string }[]> | { uri: string; name: string }[];
  read: (
    uri: URL,
    params: Record<string, string | string[]>,
    ctx: Ctx,
    extra: RequestContext,
  ) => ReadResourceResult | Promise<ReadResourceResult>;
}

export function defineResource<Ctx>(definition: ResourceDefinition<Ctx>): ResourceDefinition<Ctx> {
  return definition;
}

/**
 * Registers resources; a URI containing `{` is registered as a template. A read whose answer is over
 * `MAX_RESULT_BYTES` is logged and refused with -32603.
 */
export function registerResources<Ctx>(
  server: McpServer,
  ctx: Ctx,
  resources: ReadonlyArray<ResourceDefinition<Ctx>>,
  { logger: given }: RegisterOptions = {},
): void {
  const logger = serverLogger(server, given);
  for (const resource of resources) {
    const read = async (uri: URL, params: Record<string, string | string[]>, context: ServerContext) =>
      capAnswer('resources/read', await resource.read(uri, params, ctx, context), logger);
    const metadata = {
      title: resource.title,
      description: resource.description,
      ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
    };
    if (resource.uri.includes('{')) {
      const list = resource.list;
      const template = new ResourceTemplate(resource.uri, {
        list: list ? async (context) => ({ resources: await list(ctx, context) }) : undefined,
      });
      server.registerResource(resource.name, template, metadata, (uri, params, context) =>
        read(uri, params as Record<string, string | string[]>, context),
      );
    } else {
      server.registerResource(resource.name, resource.uri, metadata, (uri, context) => read(uri, {}, context));
    }
  }
}

/** The operations whose 2026-07-28 results carry cache hints (`ttlMs` / `cacheScope`). */
export type CacheableMethod =
  | 'server/discover'
  | 'tools/list'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read';

/** Per-operation cache hints for 2026-07-28 results. */
export type CacheHints = Partial<Record<CacheableMethod, CacheHint>>;

/** How long a list that never changes while the process runs may be cached: an hour (clients cap it at a day). */
export const STATIC_LIST_TTL_MS = 60 * 60_000;

/**
 * The default: `server/discover` and the four lists are the same for every client and do not change while
 * the process runs, so any cache may keep them an hour. `resources/read` is not hinted (not cacheable).
 */
export const STATIC_CACHE_HINTS: CacheHints = Object.freeze({
  'server/discover': { ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' },
  'tools/list': { ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' },
  'prompts/list': { ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' },
  'resources/list': { ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' },
});

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  /** Guidance for the model, sent in the `initialize` result. */
  instructions?: string;
  /**
   * Where answers refused for their size are logged (the default logger of `registerTools`,
   * `registerPrompts` and `registerResources` on this server).
   */
  logger?: Logger;
  /**
   * Cache hints of the 2026-07-28 results (`server/discover`, the lists, `resources/read`), merged over
   * `STATIC_CACHE_HINTS` operation by operation; `false`: nothing is cacheable (the SDK's `ttlMs: 0`,
   * `private`). A server whose lists change at run time (`listChanged` notifications), or whose lists
   * differ per client, must say so here, e.g. `{ 'resources/list': { ttlMs: 0, cacheScope: 'private' } }`.
   * 2025-era answers never carry hints.
   */
  cacheHints?: CacheHints | false;
}

/**
 * A new `McpServer` that declares the `logging` capability (so `logging/setLevel` works and
 * `sendLog` reaches the client). Tools, prompts and resources capabilities follow registration.
 * `options` go to the SDK as they are (a task store, more capabilities, …); their capabilities are
 * added to `logging`.
 *
 * 2026-07-28 results get the cache hints of `info.cacheHints` (default `STATIC_CACHE_HINTS`). Handlers
 * registered through `registerTools`, `registerPrompts`, `registerResources` and `setRawRequestHandler`
 * have their answers capped at `MAX_RESULT_BYTES` (`answerCap.ts`); the SDK's own registration
 * methods, used directly, are not capped.
 */
export function createMcpServer(
  { name, version, title, instructions, logger = silentLogger, cacheHints = {} }: ServerInfo,
  options: McpServerOptions = {},
): McpServer {
  const hints = { ...(cacheHints === false ? {} : { ...STATIC_CACHE_HINTS, ...cacheHints }), ...options.cacheHints };
  const server = new McpServer(
    { name, version, ...(title ? { title } : {}) },
    {
      ...options,
      capabilities: { logging: {}, ...options.capabilities },
      cacheHints: hints,
      ...(instructions ? { instructions } : {}),
    },
  );
  setServerLogger(server, logger);
  return server;
}
