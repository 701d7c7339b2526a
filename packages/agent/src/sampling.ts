/**
 * Sampling (`sampling/createMessage`): a server asks to use the model. The request is routed to the
 * agent's own provider, after the host has shown it and the user approved it; without a host that
 * can ask, it is refused. The model gets no tools here: a server cannot reach other servers' tools
 * through sampling.
 */
import type { CreateMessageRequest, CreateMessageResult, SamplingMessage } from '@modelcontextprotocol/client';
import { McpError } from './errors.js';
import type { AgentHost } from './host.js';
import type { LLMClient, Message } from './types.js';

export type SampleHandler = (
  server: string,
  params: CreateMessageRequest['params'],
  options: { signal?: AbortSignal },
) => Promise<CreateMessageResult>;

function samplingText(content: SamplingMessage['content']): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'image':
        case 'audio':
          return `[${block.type}: ${block.mimeType}]`;
        default:
          return `[${block.type}]`;
      }
    })
    .join('\n');
}

/** The sampling request as chat messages for the provider. */
export function samplingMessages(params: CreateMessageRequest['params']): Message[] {
  const messages: Message[] = [];
  if (params.systemPrompt) messages.push({ role: 'system', content: params.systemPrompt });
  for (const message of params.messages) messages.push({ role: message.role, content: samplingText(message.content) });
  return messages;
}

export function createSampleHandler(llm: LLMClient, host: AgentHost | undefined): SampleHandler {
  return async (server, params, { signal }) => {
    const messages = samplingMessages(params);
    const approve = host?.approveSampling;
    const approved = approve ? await approve({ server, messages, systemPrompt: params.systemPrompt, maxTokens: params.maxTokens }) : false;
    if (!approved) {
      throw new McpError(
        'PERMISSION_DENIED',
        approve ? 'The user declined the sampling request.' : 'Sampling needs the user’s approval and there is no terminal to ask.',
      );
    }
    let text = '';
    let stopReason: CreateMessageResult['stopReason'] = 'endTurn';
    for await (const event of llm.chat({
      messages,
      stream: false,
      maxTokens: params.maxTokens,
      temperature: params.temperature,
      signal,
    })) {
      if (event.type === 'text') text += event.text;
      else if (event.type === 'done' && event.finishReason === 'length') stopReason = 'maxTokens';
    }
    host?.showSamplingResult?.(server, text);
    return { role: 'assistant', content: { type: 'text', text }, model: llm.name, stopReason };
  };
}
