/**
 * The agent's vocabulary: chat messages, tool calls, the events a model stream produces, and the one
 * interface a provider implements (`LLMClient`). Everything else in the package is written against
 * these types, so a new provider is one file that turns its wire format into `ChatEvent`s.
 */

/** A JSON Schema object as MCP servers publish it (`Tool.inputSchema`). */
export type JsonSchema = Record<string, unknown>;

/** One tool call the model asked for. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  /** The call id. Providers that give none (text mode) get one generated (`call_<n>`). */
  id: string;
  /** The namespaced tool name (`server__tool`) as the model wrote it. */
  name: string;
  /** Raw JSON text of the arguments; may be malformed (that is reported back to the model). */
  arguments: string;
}

export type Message =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean };

/** A tool as offered to the model (after namespacing). */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface ChatRequest {
  messages: readonly Message[];
  /** Tools offered for native function calling. Absent or empty: none offered. */
  tools?: readonly ToolSpec[];
  /** Stream the reply (SSE) or ask for it whole. The events are the same either way. */
  stream: boolean;
  /** Sampling requests may ask for a cap; the provider passes it on as `max_tokens`. */
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'unknown';

/**
 * What a model reply is made of, in order. A non-streaming reply is the same events at once.
 * - `text`: a piece of the visible reply.
 * - `tool_call`: a complete native tool call (providers assemble streamed fragments first).
 * - `done`: the end of the reply, exactly once, last.
 */
export type ChatEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'done'; finishReason: FinishReason; usage?: Usage };

export interface Usage {
  promptTokens?: number;
  completionTokens?: number;
}

/**
 * The one provider interface. `chat` yields the reply's events; it throws `AgentError` (kind
 * `MODEL_ERROR`, `NETWORK_ERROR`, `CONFIG_ERROR`, `CANCELLED`) for failures the user must see.
 */
export interface LLMClient {
  /** Shown in transcripts and the sampling approval prompt, e.g. `openai:gpt-4o-mini`. */
  readonly name: string;
  chat(request: ChatRequest): AsyncIterable<ChatEvent>;
}
