/**
 * The OpenAI chat-completions wire format: the request body built from a `ChatRequest`, and the
 * reading of replies (streamed chunks and whole completions) into `ChatEvent`s. Pure functions, no
 * I/O, so the mapping is testable on its own and shared by every OpenAI-compatible server.
 */
import { McpError } from '../errors.js';
import type { ChatEvent, ChatRequest, FinishReason, Message, Usage } from '../types.js';
import { bodyMessage, errorMemberMessage, excerpt } from './failures.js';
import { sanitizeToolSchema } from './sanitizeSchema.js';
import { createToolCallAssembler, type ToolCallDelta } from './toolCallAssembler.js';

/** A chat message as `/chat/completions` takes it. */
type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool offered for native function calling. */
interface WireTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The JSON body of `POST /chat/completions`. */
export interface ChatCompletionBody {
  model: string;
  messages: WireMessage[];
  tools?: WireTool[];
  stream: boolean;
  max_tokens?: number;
  temperature?: number;
}

/** One message in the wire format. Empty assistant text is `null`, as OpenAI sends it back. */
function toWireMessage(message: Message): WireMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const wire: WireMessage = { role: 'assistant', content: message.content || null };
      if (message.toolCalls && message.toolCalls.length > 0) {
        wire.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      return wire;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

/**
 * The request body. `stream_options` is never sent: some local servers reject unknown options, and
 * servers that report usage in streams do so in the last chunk anyway.
 */
export function buildChatBody(model: string, request: ChatRequest): ChatCompletionBody {
  const body: ChatCompletionBody = { model, messages: request.messages.map(toWireMessage), stream: request.stream };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: sanitizeToolSchema(tool.inputSchema) },
    }));
  }
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  return body;
}

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  // The pre-tools name of a tool call; some servers still send it.
  function_call: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
};

/** The wire `finish_reason` as a `FinishReason`; unknown or missing values are `unknown`. */
function mapFinishReason(reason: unknown): FinishReason {
  return (typeof reason === 'string' && Object.hasOwn(FINISH_REASONS, reason) ? FINISH_REASONS[reason] : undefined) ?? 'unknown';
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const out: Usage = {};
  if (typeof usage.prompt_tokens === 'number') out.promptTokens = usage.prompt_tokens;
  if (typeof usage.completion_tokens === 'number') out.completionTokens = usage.completion_tokens;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Text of a `content` member: a string, or (some servers) a list of `{type: 'text', text}` parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
  return '';
}

/**
 * The tool-call deltas of a stream delta or a whole message: `tool_calls`, or the legacy single
 * `function_call`. In a whole message each list item is one complete call, whatever its `index`.
 */
function toolCallDeltas(holder: Json, whole: boolean): ToolCallDelta[] {
  const deltas: ToolCallDelta[] = [];
  if (Array.isArray(holder.tool_calls)) {
    holder.tool_calls.forEach((item, position) => {
      if (!isObject(item)) return;
      const fn = isObject(item.function) ? item.function : {};
      deltas.push({
        index: whole ? position : typeof item.index === 'number' ? item.index : undefined,
        position,
        id: typeof item.id === 'string' ? item.id : undefined,
        name: typeof fn.name === 'string' ? fn.name : undefined,
        arguments: fn.arguments,
      });
    });
  } else if (isObject(holder.function_call)) {
    const fn = holder.function_call;
    deltas.push({ index: 0, position: 0, name: typeof fn.name === 'string' ? fn.name : undefined, arguments: fn.arguments });
  }
  return deltas;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new McpError('MODEL_ERROR', `the model server sent ${what} that is not JSON: ${excerpt(text)}`);
  }
}

function midStreamError(message: string): McpError {
  return new McpError('MODEL_ERROR', `the model server reported an error mid-stream: ${message}`);
}

/**
 * Reads a stream of `chat.completion.chunk` events (the `data` of each SSE event). Text is returned
 * by the same `push` that received it; tool calls are assembled across chunks and returned, complete
 * and in index order, by `end()` with the `done` event.
 */
export interface ChunkReader {
  /** One SSE event's data (and type). `more` is false once `[DONE]` has been seen: nothing more to read. */
  push(data: string, eventType?: string): { events: ChatEvent[]; more: boolean };
  end(): ChatEvent[];
}

/** A reader for one streamed reply. */
export function createChunkReader(): ChunkReader {
  const calls = createToolCallAssembler();
  let finish: unknown;
  let usage: Usage | undefined;
  return {
    push(data, eventType) {
      const trimmed = data.trim();
      if (trimmed === '[DONE]') return { events: [], more: false };
      // An empty `data:` is a keep-alive some servers send.
      if (trimmed === '') return { events: [], more: true };
      // llama.cpp and others send `event: error`; OpenAI sends `{"error": …}` as a plain event.
      if (eventType === 'error') throw midStreamError(bodyMessage(data));
      const chunk = parseJson(data, 'a stream event');
      const error = errorMemberMessage(chunk);
      if (error !== undefined) throw midStreamError(excerpt(error));
      if (!isObject(chunk)) return { events: [], more: true };
      usage = mapUsage(chunk.usage) ?? usage;
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      if (!isObject(choice)) return { events: [], more: true };
      if (choice.finish_reason) finish = choice.finish_reason;
      const delta = isObject(choice.delta) ? choice.delta : {};
      // `reasoning_content` (and `reasoning`) deltas are a model's thinking, not its reply: ignored.
      const text = contentText(delta.content);
      for (const item of toolCallDeltas(delta, false)) calls.add(item);
      return { events: text ? [{ type: 'text', text }] : [], more: true };
    },
    end() {
      const events: ChatEvent[] = calls.finish().map((call) => ({ type: 'tool_call', call }));
      events.push(
        usage ? { type: 'done', finishReason: mapFinishReason(finish), usage } : { type: 'done', finishReason: mapFinishReason(finish) },
      );
      return events;
    },
  };
}

/** The events of a whole (non-streamed) `chat.completion` body. */
export function readCompletion(text: string): ChatEvent[] {
  const body = parseJson(text, 'a reply');
  const error = errorMemberMessage(body);
  if (error !== undefined) throw new McpError('MODEL_ERROR', `the model server reported an error: ${excerpt(error)}`);
  const choice = isObject(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObject(body) || !isObject(choice)) throw new McpError('MODEL_ERROR', `the model server's reply has no choices: ${excerpt(text)}`);
  const message = isObject(choice.message) ? choice.message : {};
  const calls = createToolCallAssembler();
  for (const item of toolCallDeltas(message, true)) calls.add(item);
  const events: ChatEvent[] = [];
  const content = contentText(message.content);
  if (content) events.push({ type: 'text', text: content });
  for (const call of calls.finish()) events.push({ type: 'tool_call', call });
  const usage = mapUsage(body.usage);
  const finishReason = mapFinishReason(choice.finish_reason);
  events.push(usage ? { type: 'done', finishReason, usage } : { type: 'done', finishReason });
  return events;
}
