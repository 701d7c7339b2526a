/**
 * The answer-size cap and the one-line wording of refused requests, applied by our own registration
 * wrappers (`registerTools`, `registerPrompts`, `registerResources`, `setRawRequestHandler`), never by
 * patching the SDK: an answer over `MAX_RESULT_BYTES` never reaches the wire, where the client would drop
 * the connection. A tool call gets an `isError` result saying so; any other request a -32603 error.
 *
 * Handlers registered straight on the SDK (`server.registerTool`, `server.server.setRequestHandler`) are
 * not capped: the v2 SDK offers no public hook around every handler (v1's `_requestHandlers` patch is gone).
 */
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

/** An error the SDK sends with `code` and exactly `message`. */
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

/** `result` if it fits; otherwise logs and returns the `isError` result that replaces a tool's oversized answer. */
export function capToolResult<R>(tool: string, result: R, logger: Logger): R | ReturnType<typeof errorResult> {
  const size = sizeOver(result);
  if (size === undefined) return result;
  logger.warn(`Tool ${tool} answered ${size} bytes, over the limit of ${MAX_RESULT_BYTES}; it got an error instead`);
  return errorResult(tooLargeMessage(`tool ${tool}`, size));
}

/** `result` if it fits; otherwise logs and throws the -32603 error that replaces any other oversized answer. */
export function capAnswer<R>(method: string, result: R, logger: Logger): R {
  const size = sizeOver(result);
  if (size === undefined) return result;
  logger.warn(`the answer to ${method} is ${size} bytes, over the limit of ${MAX_RESULT_BYTES}; sent an error instead`);
  throw codedError(ErrorCode.InternalError, tooLargeMessage(method, size));
}
