/**
 * A scripted reply in the OpenAI wire format: the `chat.completion.chunk` events of a stream, or
 * one `chat.completion` body. Pure functions; the server in `scriptedModel.ts` sends what they build.
 */
import type { ScriptedReply } from './scriptedTurn.js';

/** The response's identity, the same in every chunk. */
export interface ReplyIdentity {
  id: string;
  model: string;
  created: number;
  /** The 1-based request number, for default tool-call ids. */
  requestNumber: number;
}

type Json = Record<string, unknown>;

function pieces(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** `text` cut into at most `count` non-empty pieces of near-equal length (one empty piece for empty text). */
function splitText(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, Math.floor(count))));
  const out: string[] = [];
  for (let start = 0; start < text.length; start += size) out.push(text.slice(start, start + size));
  return out.length > 0 ? out : [''];
}

function finishReason(reply: ScriptedReply): string {
  return reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
}

function wireUsage(usage: ScriptedReply['usage']): Json | undefined {
  if (!usage) return undefined;
  const prompt = usage.promptTokens ?? 0;
  const completion = usage.completionTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function toolCalls(reply: ScriptedReply, identity: ReplyIdentity) {
  return (reply.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call_${identity.requestNumber}_${position + 1}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    chunks: call.chunks ?? 1,
  }));
}

/** Whether the reply has anything before its finish chunk. */
export function hasContent(reply: ScriptedReply): boolean {
  return pieces(reply.text).length > 0 || pieces(reply.reasoning).length > 0 || (reply.toolCalls?.length ?? 0) > 0;
}

/**
 * The stream's chunks, in order: content deltas, then (unless `withEnd` is false) the finish chunk
 * and the usage chunk. `[DONE]` is the sender's business.
 */
export function streamChunks(reply: ScriptedReply, identity: ReplyIdentity, withEnd = true): Json[] {
  const deltas: Json[] = [];
  for (const text of pieces(reply.reasoning)) deltas.push({ reasoning_content: text });
  for (const text of pieces(reply.text)) deltas.push({ content: text });
  toolCalls(reply, identity).forEach((call, index) => {
    deltas.push({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const part of splitText(call.arguments, call.chunks)) deltas.push({ tool_calls: [{ index, function: { arguments: part } }] });
  });
  if (withEnd) deltas.push({});
  const chunk = (choices: Json[]): Json => ({
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices,
  });
  const chunks = deltas.map((delta, position) =>
    chunk([
      {
        index: 0,
        delta: position === 0 ? { role: 'assistant', ...delta } : delta,
        finish_reason: withEnd && position === deltas.length - 1 ? finishReason(reply) : null,
      },
    ]),
  );
  const usage = wireUsage(reply.usage);
  if (withEnd && usage) chunks.push({ ...chunk([]), usage });
  return chunks;
}

/** The whole `chat.completion` body. */
export function completionBody(reply: ScriptedReply, identity: ReplyIdentity): Json {
  const text = pieces(reply.text).join('');
  const reasoning = pieces(reply.reasoning).join('');
  const calls = toolCalls(reply, identity);
  const message: Json = { role: 'assistant', content: text || null };
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length > 0)
    message.tool_calls = calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  const body: Json = {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, finish_reason: finishReason(reply), logprobs: null }],
  };
  const usage = wireUsage(reply.usage);
  if (usage) body.usage = usage;
  return body;
}

/** The error body OpenAI sends with an error status. */
export function errorBody(status: number, message: string): Json {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: null } };
}
