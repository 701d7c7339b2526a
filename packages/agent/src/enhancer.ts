/**
 * The seed's `McpEnhancer`: decorates an `LLMClient` with the tools of MCP servers. The enhanced
 * client takes a conversation and runs the step loop (pipeline/loop.ts) on it, yielding the
 * visible reply and the tool activity as events. It keeps no conversation of its own; `Agent`
 * (agent.ts) adds the session.
 */
import type { ApprovalOptions } from './approval.js';
import { type ApprovalGate, createApprovalGate } from './approval.js';
import type { AgentHost } from './host.js';
import type { ToolRouter } from './mcp/types.js';
import type { AgentEvent, PipelineSettings, RunControl, ToolMode } from './pipeline/context.js';
import { runToolLoop } from './pipeline/loop.js';
import { DEFAULT_MAX_RESULT_CHARS } from './results.js';
import type { ToolSearchOptions } from './tools/offer.js';
import type { LLMClient, Message } from './types.js';

export interface EnhanceOptions {
  /** `native` (function calling) or `text` (calls written in the reply). Default `native`. */
  mode?: ToolMode;
  /** Stream replies. Default true. */
  stream?: boolean;
  /** Tool rounds before the last, tool-less call. Default 5 (the seed's depth). */
  maxSteps?: number;
  /** Per tool call, reset whenever the server reports progress. Default none (the router's own). */
  toolTimeoutMs?: number;
  /** Cap on one tool result sent to the model. Default 20,000 characters. */
  maxResultChars?: number;
  /**
   * Many tools: past a threshold (default 5% of a 32,768-token window, estimated) the tools are
   * deferred behind `tool_search`. `false`: always offer every tool.
   */
  toolSearch?: ToolSearchOptions | false;
  approval?: ApprovalOptions;
  host?: AgentHost;
}

/** One run of the tool loop, cancellable piece by piece. */
export interface EnhancedRun extends AsyncIterable<AgentEvent> {
  /** Cancel what is running now (a model call or a tool call) and end the run after it. */
  cancelCurrent(): boolean;
  /** Cancel the run. */
  abort(reason?: unknown): void;
}

export interface EnhancedLLMClient {
  readonly name: string;
  readonly approval: ApprovalGate;
  /** Run the tool loop on `messages` (not modified). New messages arrive as `message` events. */
  run(messages: readonly Message[], options?: { signal?: AbortSignal }): EnhancedRun;
}

function positiveNumber(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be a number > 0, got ${value}`);
}

export function enhanceLLMClient(llm: LLMClient, router: ToolRouter, options: EnhanceOptions = {}): EnhancedLLMClient {
  const approval = createApprovalGate(options.approval ?? {}, options.host);
  const maxSteps = options.maxSteps ?? 5;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RangeError(`maxSteps must be an integer ≥ 1, got ${maxSteps}`);
  if (options.toolSearch) {
    positiveNumber('toolSearch.contextWindowTokens', options.toolSearch.contextWindowTokens);
    positiveNumber('toolSearch.thresholdTokens', options.toolSearch.thresholdTokens);
    positiveNumber('toolSearch.maxResults', options.toolSearch.maxResults);
  }
  const settings: PipelineSettings = {
    llm,
    router,
    approval,
    mode: options.mode ?? 'native',
    stream: options.stream ?? true,
    maxSteps,
    toolTimeoutMs: options.toolTimeoutMs,
    maxResultChars: options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
    toolSearch: options.toolSearch,
  };

  return {
    name: `${llm.name}+mcp`,
    approval,
    run(messages, runOptions = {}) {
      const controller = new AbortController();
      const outer = runOptions.signal;
      if (outer?.aborted) controller.abort(outer.reason);
      else outer?.addEventListener('abort', () => controller.abort(outer.reason), { once: true });
      const control: RunControl = { signal: controller.signal, cancelled: false };
      return {
        [Symbol.asyncIterator]: () => runToolLoop(settings, messages, control),
        cancelCurrent() {
          const current = control.current;
          if (!current || current.signal.aborted) return false;
          control.cancelled = true;
          current.abort(new Error('cancelled by the user'));
          return true;
        },
        abort(reason) {
          control.cancelled = true;
          controller.abort(reason);
        },
      };
    },
  };
}
