/**
 * What flows through the tool-call pipeline (the seed's `ToolCallContext`): the run's messages, the
 * tools offered this round, the model's reply as it was collected, the calls found in it and their
 * outcomes. Processors read and fill it; none of them talks to another directly.
 */
import type { ApprovalGate } from '../approval.js';
import type { ToolEntry, ToolRouter } from '../mcp/types.js';
import type { ParsedCall } from '../textmode/parser.js';
import type { ChatEvent, FinishReason, LLMClient, Message, ToolCall, ToolSpec, Usage } from '../types.js';

export type ToolMode = 'native' | 'text';

/** How a tool call ended, as the host shows it. */
export type ToolOutcomeStatus = 'ok' | 'error' | 'denied' | 'timeout' | 'cancelled' | 'unknown_tool' | 'invalid';

export interface ToolOutcome {
  call: ToolCall;
  tool?: ToolEntry;
  status: ToolOutcomeStatus;
  /** What the model is told (already capped). */
  text: string;
  isError: boolean;
  durationMs: number;
  /** The server's result as it came (absent when the call never reached a server). */
  raw?: unknown;
}

/** What the agent tells its consumer, in order, while a run goes on. */
export type AgentEvent =
  /** A model call starts: `step` counts tool rounds so far; `final` when tools are withheld. */
  | { type: 'model_call'; step: number; final: boolean }
  /** Visible reply text (call markup never appears here). */
  | { type: 'text'; text: string }
  /** The model's reply ended. */
  | { type: 'reply_end'; finishReason: FinishReason; usage?: Usage }
  | { type: 'tool_call'; call: ToolCall; tool?: ToolEntry }
  | { type: 'tool_result'; outcome: ToolOutcome }
  /** A message added to the conversation (the assistant's reply, a tool result). */
  | { type: 'message'; message: Message }
  | { type: 'notice'; text: string }
  /** The user cancelled what was running; the run ends after this round. */
  | { type: 'cancelled'; during: 'model' | 'tool' };

export interface PipelineSettings {
  llm: LLMClient;
  router: ToolRouter;
  approval: ApprovalGate;
  mode: ToolMode;
  stream: boolean;
  /** Tool rounds before the last, tool-less model call. */
  maxSteps: number;
  toolTimeoutMs?: number;
  maxResultChars: number;
  emit: (event: AgentEvent) => void;
}

export interface ReplyState {
  /** The visible text of the reply (text mode: with the call markup taken out). */
  text: string;
  calls: ParsedCall[];
  finishReason: FinishReason;
  usage?: Usage;
}

export interface ToolCallContext {
  readonly settings: PipelineSettings;
  /** The run's conversation: the session's history plus what this run added. */
  messages: Message[];
  /** Tool rounds done so far. */
  step: number;
  /** False on the last call, once `maxSteps` rounds are done: the model must answer. */
  toolsEnabled: boolean;
  /** Tools offered this round (namespaced). */
  tools: ToolSpec[];
  /** The provider's event stream for this round (set by the conversation entry). */
  response?: AsyncIterable<ChatEvent>;
  reply?: ReplyState;
  /** Calls to run this round (extracted from the reply). */
  toolCalls: ParsedCall[];
  outcomes: ToolOutcome[];
  /** The run ends after this processor (no tool calls, cancelled, or the final answer given). */
  done: boolean;
  /** Cancels the whole run (second Ctrl-C, or the caller's signal). */
  signal: AbortSignal;
  /** Cancels what is running now (a model call or a tool call): first Ctrl-C. */
  current?: AbortController;
  /** Stops `current` following `signal` once the model call is read to its end. */
  releaseCurrent?: () => void;
  cancelled: boolean;
}
