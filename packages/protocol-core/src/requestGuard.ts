/**
 * What every server's request handlers get from `createMcpServer`, whoever registered them (`McpServer`,
 * `registerTools`, `setRawRequestHandler`, session resources added at run time):
 * - a request whose params do not match the method's schema (`arguments: "x"`, `name: 5`, `uri: 5`) is a
 *   -32602 error of one line naming the field (`Invalid tools/call request: Invalid input: expected record,
 *   received string at params.arguments`), not -32603 with zod's JSON dump of the issues;
 * - an answer over `MAX_RESULT_BYTES` never reaches the wire, where the client would drop the connection:
 *   a tool call gets an `isError` result saying so, any other request a -32603 error.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { ErrorCode } from './errors.js';
import type { Logger } from './logger.js';
import { errorResult } from './results.js';
import { formatSize, MAX_RESULT_BYTES, sizeOver } from './size.js';

interface Issue {
  message: string;
  path?: ReadonlyArray<PropertyKey>;
}

/** zod's (3 or 4) issues as one line: `<message> at <dotted.path>`, several joined by `; `. */
export function describeIssues(issues: ReadonlyArray<Issue>): string {
  return issues
    .map((issue) => (issue.path?.length ? `${issue.message} at ${issue.path.map(String).join('.')}` : issue.message))
    .join('; ')
    .replace(/\s*\n\s*/g, ' ');
}

/** The issues of a zod error (3 or 4, classic or mini), or undefined for anything else. */
function zodIssues(error: unknown): ReadonlyArray<Issue> | undefined {
  if (!(error instanceof Error)) return undefined;
  const issues = (error as { issues?: unknown }).issues;
  return Array.isArray(issues) && issues.length > 0 ? (issues as Issue[]) : undefined;
}

/** An error the SDK sends with `code` and exactly `message` (an `McpError` would prefix `MCP error <code>: `). */
function codedError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The -32602 error for a request that does not match its method's schema. */
export function invalidRequestError(method: string, issues: ReadonlyArray<Issue>): Error {
  return codedError(ErrorCode.InvalidParams, `Invalid ${method} request: ${describeIssues(issues)}`);
}

/** The text of the error that replaces an answer over the limit. */
export function tooLargeMessage(what: string, size: number, limit = MAX_RESULT_BYTES): string {
  return (
    `The answer to ${what} is ${formatSize(size)}, over the limit of ${formatSize(limit)} ` +
    '(MCP clients drop larger messages). Ask for less: use the paging or length arguments ' +
    '(a smaller limit or max_length, a cursor or start_index, a narrower query).'
  );
}

type StoredHandler = (request: { method: string; params?: Record<string, unknown> }, extra: unknown) => unknown;

function guard(method: string, handler: StoredHandler, logger: Logger): StoredHandler {
  return async (request, extra) => {
    let pending: unknown;
    try {
      // The SDK parses the request with the method's schema synchronously, before the handler runs; a
      // handler's own failures come later, as a rejection, and keep their code.
      pending = handler(request, extra);
    } catch (error) {
      const issues = zodIssues(error);
      throw issues ? invalidRequestError(method, issues) : error;
    }
    const result = await pending;
    const size = sizeOver(result);
    if (size === undefined) return result;
    const name = method === 'tools/call' && typeof request.params?.name === 'string' ? `tool ${request.params.name}` : method;
    logger.warn(`the answer to ${name} is ${size} bytes, over the limit of ${MAX_RESULT_BYTES}; sent an error instead`);
    const message = tooLargeMessage(name, size);
    if (method === 'tools/call') return errorResult(message);
    throw codedError(ErrorCode.InternalError, message);
  };
}

/**
 * Guards every request handler of `server`, those it has and those registered later. The SDK (v1) keeps
 * them in `Protocol._requestHandlers`, a `Map` from method to a function that parses the request with the
 * method's schema (throwing a `ZodError`) and calls the handler.
 */
export function guardRequests(server: McpServer, logger: Logger): void {
  const handlers = (server.server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) throw new Error('guardRequests: this @modelcontextprotocol/server keeps no _requestHandlers map');
  const map = handlers as Map<string, StoredHandler>;
  const set = map.set.bind(map);
  for (const [method, handler] of map) set(method, guard(method, handler, logger));
  map.set = (method: string, handler: StoredHandler) => set(method, guard(method, handler, logger));
}
