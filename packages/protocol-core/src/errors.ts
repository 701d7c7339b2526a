import type { Logger } from './logger.js';

/**
 * Error families, after the SDK's split:
 * - `ToolError`: an expected failure of a tool call; becomes an `isError` result with its message.
 * - `ConfigError`: bad flags or environment; the CLI prints one line and exits 2.
 * - `ErrorCode`: the JSON-RPC error codes our code puts on the wire itself, in one place (the SDK's own,
 *   such as -32601 or 2026's -32020 and -32022, are `ProtocolErrorCode` of `@modelcontextprotocol/server`).
 */

/** JSON-RPC 2.0 and MCP error codes (spec 2025-11-25 and 2026-07-28). */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid request object. */
  InvalidRequest: -32600,
  /** Invalid method parameters (also: unknown resource in 2026-07-28). */
  InvalidParams: -32602,
  /** Internal JSON-RPC error. */
  InternalError: -32603,
  /** Implementation-defined server error (the SDK uses it for transport-level refusals). */
  ServerError: -32000,
  /** Resource not found (2025-11-25 and earlier; 2026-07-28 uses InvalidParams). */
  ResourceNotFound: -32002,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** An expected tool failure. Its message is shown to the model verbatim, so keep it free of internals. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** A configuration problem. `flag` names the flag or variable at fault. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly flag?: string,
  ) {
    super(message);
  }
}

/** Extracts a message from anything thrown, without a stack. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Logs an unexpected failure with its stack and returns the text the client sees instead (no internals). */
export function hideUnexpected(kind: 'Tool' | 'Prompt', name: string, error: unknown, logger: Logger): string {
  logger.error(`${kind} ${name} failed unexpectedly:`, error);
  return `${kind} ${name} failed unexpectedly; the server log has the details.`;
}
