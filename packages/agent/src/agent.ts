/**
 * The seed's `AgentRunner` + `AgentSession`: a conversation with an enhanced client. Each prompt
 * runs the tool loop on the session's history; the messages the run adds are committed to the
 * session as they arrive (each one leaves the history consistent: a tool-calling assistant message
 * is always followed by one tool message per call).
 */
import { type EnhancedRun, type EnhanceOptions, enhanceLLMClient } from './enhancer.js';
import type { ToolRouter } from './mcp/types.js';
import type { AgentEvent, ToolOutcome } from './pipeline/context.js';
import { type AgentSession, createSession } from './session.js';
import type { FinishReason, LLMClient, Message, Usage } from './types.js';

export interface AgentOptions extends EnhanceOptions {
  llm: LLMClient;
  router: ToolRouter;
  /** Sent first in every request. */
  systemPrompt?: string;
  /** Continue an existing conversation. */
  session?: AgentSession;
}

export interface RunResult {
  /** The visible text of the last reply. */
  text: string;
  /** The messages this run added (assistant replies and tool results). */
  messages: Message[];
  outcomes: ToolOutcome[];
  /** Tool rounds run. */
  steps: number;
  cancelled: boolean;
  finishReason: FinishReason;
  usage: Usage;
}

export interface Agent {
  readonly session: AgentSession;
  /** Start a run; iterate it for events. The user message is added at once. */
  send(prompt: string, options?: { signal?: AbortSignal }): EnhancedRun;
  /** Run to the end, calling `onEvent` for each event; resolves with the summary. */
  run(prompt: string, options?: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void }): Promise<RunResult>;
}

export function createAgent(options: AgentOptions): Agent {
  const session = options.session ?? createSession(options.systemPrompt);
  const enhanced = enhanceLLMClient(options.llm, options.router, options);

  function send(prompt: string, sendOptions: { signal?: AbortSignal } = {}): EnhancedRun {
    session.addMessage({ role: 'user', content: prompt });
    const inner = enhanced.run(session.getMessages(), sendOptions);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const event of inner) {
          if (event.type === 'message') session.addMessage(event.message);
          yield event;
        }
      },
      cancelCurrent: () => inner.cancelCurrent(),
      abort: (reason) => inner.abort(reason),
    };
  }

  return {
    session,
    send,
    run: (prompt, runOptions = {}) => collectRun(send(prompt, runOptions), runOptions.onEvent),
  };
}

/** Run `run` to its end, calling `onEvent` for each event; resolves with the summary. */
export async function collectRun(run: AsyncIterable<AgentEvent>, onEvent?: (event: AgentEvent) => void): Promise<RunResult> {
  const result: RunResult = { text: '', messages: [], outcomes: [], steps: 0, cancelled: false, finishReason: 'unknown', usage: {} };
  for await (const event of run) {
    onEvent?.(event);
    switch (event.type) {
      case 'model_call':
        result.text = '';
        result.steps = event.step;
        break;
      case 'text':
        result.text += event.text;
        break;
      case 'reply_end':
        result.finishReason = event.finishReason;
        result.usage = {
          promptTokens: (result.usage.promptTokens ?? 0) + (event.usage?.promptTokens ?? 0),
          completionTokens: (result.usage.completionTokens ?? 0) + (event.usage?.completionTokens ?? 0),
        };
        break;
      case 'message':
        result.messages.push(event.message);
        break;
      case 'tool_result':
        result.outcomes.push(event.outcome);
        break;
      case 'cancelled':
        result.cancelled = true;
        break;
    }
  }
  return result;
}
