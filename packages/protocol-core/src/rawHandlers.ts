import type { McpServer, Result } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { capAnswer, capToolResult, invalidRequestError } from './answerCap.js';
import type { Logger } from './logger.js';
import type { RequestContext } from './requestContext.js';
import { serverLogger } from './serverLogger.js';

/** A spec request schema from `@modelcontextprotocol/core` (`CallToolRequestSchema`, …): a zod object with a `method` literal. */
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> } & z.ZodRawShape>;

export type RawRequestHandler<T extends RequestSchema> = (request: z.output<T>, extra: RequestContext) => Result | Promise<Result>;

/**
 * Answers `schema`'s method on `server` with `handler`, for a drop-in replacement whose reference is a
 * low-level `Server` with hand-written handlers, through the SDK's public `server.server.setRequestHandler`.
 *
 * - The SDK first checks the request against the spec's schema for the era being served (a malformed
 *   `tools/call` is its -32602; other methods its -32603). A request that passes that but not `schema`
 *   (stricter) is a -32602 error of one line: `Invalid <method> request: <message> at <path>`.
 * - An answer over `MAX_RESULT_BYTES` is logged (to `logger`, else the server's) and replaced: an
 *   `isError` result for `tools/call`, a -32603 error otherwise.
 * - v2's `Server` validates and re-encodes every `tools/call` result with the era's `CallToolResult`
 *   schema (fields the schema does not name, such as an embedded resource's `name`, are dropped); v1 let
 *   a raw handler's result through untouched. No public v2 API bypasses that, for `McpServer` or a plain `Server`.
 */
export function setRawRequestHandler<T extends RequestSchema>(
  server: McpServer,
  schema: T,
  handler: RawRequestHandler<T>,
  { logger }: { logger?: Logger } = {},
): void {
  const method = schema.shape.method.value;
  if (typeof method !== 'string') throw new Error('setRawRequestHandler: the schema has no method literal');
  const log = () => serverLogger(server, logger);
  server.server.setRequestHandler(
    method as never,
    (async (request: unknown, context: RequestContext) => {
      const parsed = schema.safeParse(request);
      if (!parsed.success) throw invalidRequestError(method, parsed.error.issues);
      const result = await handler(parsed.data, context);
      if (method !== 'tools/call') return capAnswer(method, result, log());
      const name = (parsed.data as { params?: { name?: unknown } }).params?.name;
      return capToolResult(String(name), result, log());
    }) as never,
  );
}
