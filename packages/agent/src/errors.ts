/**
 * One error class for the agent, with a string kind (the seed's `McpErrorType`, plus the kinds a
 * host needs to tell the user what to do). Tool-side kinds go back to the model as tool results;
 * the others end the run with a message for the user.
 */
export type McpErrorKind =
  | 'TOOL_NOT_FOUND'
  | 'TOOL_EXECUTION_FAILED'
  | 'TOOL_TIMEOUT'
  | 'RESOURCE_NOT_FOUND'
  | 'PROMPT_NOT_FOUND'
  | 'PERMISSION_DENIED'
  | 'MODEL_ERROR'
  | 'NETWORK_ERROR'
  | 'CONFIG_ERROR'
  | 'SERVER_START_FAILED'
  | 'CANCELLED'
  | 'UNKNOWN_ERROR';

/** Kinds that are about one tool call: the model is told and the loop goes on. */
const TOOL_KINDS: ReadonlySet<McpErrorKind> = new Set([
  'TOOL_NOT_FOUND',
  'TOOL_EXECUTION_FAILED',
  'TOOL_TIMEOUT',
  'RESOURCE_NOT_FOUND',
  'PROMPT_NOT_FOUND',
  'PERMISSION_DENIED',
]);

export class McpError extends Error {
  override readonly name = 'McpError';
  readonly kind: McpErrorKind;
  readonly details?: unknown;

  constructor(kind: McpErrorKind, message: string, options: { details?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.details = options.details;
  }

  /** The seed's `code`: the same string as `kind`. */
  get code(): McpErrorKind {
    return this.kind;
  }

  /** True when the model should hear about this (one tool call failed), false when the user must. */
  get isToolError(): boolean {
    return TOOL_KINDS.has(this.kind);
  }

  override toString(): string {
    return `${this.kind}: ${this.message}`;
  }
}

export function isMcpError(error: unknown, kind?: McpErrorKind): error is McpError {
  return error instanceof McpError && (kind === undefined || error.kind === kind);
}

/** A one-line message for any thrown value (never a stack). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}
