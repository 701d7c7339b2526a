/**
 * What the step loop (loop.ts) works with: its settings, the events it yields, how a tool call
 * ended, and the one piece of state the host can reach into while a run goes on (cancellation).
 */
import type { ApprovalDecision, ApprovalGate } from '../approval.js';
import type { ToolEntry, ToolRouter } from '../mcp/types.js';
import type { ParsedCall } from '../textmode/parser.js';
import type { ToolSearchOptions } from '../tools/offer.js';
import type { FinishReason, LLMClient, Message, ToolCall, Usage } from '../types.js';

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
  /** A call is about to run (after its approval); `tool` is absent for the agent's own `tool_search`. */
  | { type: 'tool_call'; call: ToolCall; tool?: ToolEntry }
  /** The approval gate decided on a server tool call (allowed by a rule, by the user, or denied). */
  | { type: 'approval'; call: ToolCall; tool: ToolEntry; decision: ApprovalDecision }
  | { type: 'tool_result'; outcome: ToolOutcome }
  /** A message added to the conversation (the assistant's reply, a tool result). */
  | { type: 'message'; message: Message }
  | { type: 'notice'; text: string }
  /** The user cancelled what was running; the run ends after this round. */
  | { type: 'cancelled'; during: 'model' | 'tool' }
  /** The run is over: the last event. `steps` counts tool rounds. */
  | { type: 'done'; steps: number; cancelled: boolean; finishReason: FinishReason };

export interface PipelineSettings {
  llm: LLMClient;
  router: ToolRouter;
  approval: ApprovalGate;
  mode: ToolMode;
  stream: boolean;
  /** Tool rounds before the last, tool-less model call: the loop's bound. */
  maxSteps: number;
  toolTimeoutMs?: number;
  maxResultChars: number;
  /** Deferral behind `tool_search` (`false`: always offer every tool). */
  toolSearch?: ToolSearchOptions | false;
}

/** The reply as the sideband collected it. */
export interface ReplyState {
  /** The visible text of the reply (text mode: with the call markup taken out). */
  text: string;
  calls: ParsedCall[];
  finishReason: FinishReason;
  usage?: Usage;
}

/**
 * Cancellation, shared by the loop and the host: `current` is the model call or tool call running
 * now (the first Ctrl-C aborts it), `signal` the whole run's (a second Ctrl-C, or the caller's).
 */
export interface RunControl {
  readonly signal: AbortSignal;
  current?: AbortController;
  /** Set once the user cancelled: the run ends after this round. */
  cancelled: boolean;
}
