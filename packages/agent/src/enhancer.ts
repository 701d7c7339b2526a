/**
 * The seed's `McpEnhancer`: decorates an `LLMClient` with the tools of MCP servers. The enhanced
 * client takes a conversation and runs the whole tool loop (the pipeline) on it, yielding the
 * visible reply and the tool activity as events. It keeps no conversation of its own; `Agent`
 * (agent.ts) adds the session.
 */

import type { ApprovalOptions } from './approval.js';
import { type ApprovalGate, createApprovalGate } from './approval.js';
import type { AgentHost } from './host.js';
import type { ToolRouter } from './mcp/types.js';
import type { AgentEvent, PipelineSettings, ToolCallContext, ToolMode } from './pipeline/context.js';
import { ToolCallPipeline } from './pipeline/pipeline.js';
import { conversationEntry } from './pipeline/processors/conversationEntry.js';
import { execute } from './pipeline/processors/execute.js';
import { extract } from './pipeline/processors/extract.js';
import { formatResults } from './pipeline/processors/formatResults.js';
import { prepareTools } from './pipeline/processors/prepareTools.js';
import { recurse } from './pipeline/processors/recurse.js';
import { sideband } from './pipeline/processors/sideband.js';
import { DEFAULT_MAX_RESULT_CHARS } from './results.js';
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

export function createPipeline(): ToolCallPipeline {
  const pipeline = ToolCallPipeline.create();
  return pipeline
    .addProcessor(prepareTools)
    .addProcessor(conversationEntry)
    .addProcessor(sideband)
    .addProcessor(extract)
    .addProcessor(execute)
    .addProcessor(formatResults)
    .addProcessor(recurse(pipeline));
}

/** A small push queue turned into an async iterable: the pipeline pushes, the consumer pulls. */
function eventQueue<T>() {
  const items: T[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let failure: { error: unknown } | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    push(item: T) {
      items.push(item);
      notify();
    },
    end(error?: { error: unknown }) {
      finished = true;
      failure = error;
      notify();
    },
    async *drain(): AsyncGenerator<T> {
      for (;;) {
        while (items.length > 0) yield items.shift() as T;
        if (finished) {
          if (failure) throw failure.error;
          return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}

export function enhanceLLMClient(llm: LLMClient, router: ToolRouter, options: EnhanceOptions = {}): EnhancedLLMClient {
  const approval = createApprovalGate(options.approval ?? {}, options.host);
  const pipeline = createPipeline();
  const maxSteps = options.maxSteps ?? 5;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RangeError(`maxSteps must be an integer ≥ 1, got ${maxSteps}`);

  return {
    name: `${llm.name}+mcp`,
    approval,
    run(messages, runOptions = {}) {
      const queue = eventQueue<AgentEvent>();
      const controller = new AbortController();
      const outer = runOptions.signal;
      if (outer?.aborted) controller.abort(outer.reason);
      else outer?.addEventListener('abort', () => controller.abort(outer.reason), { once: true });
      const settings: PipelineSettings = {
        llm,
        router,
        approval,
        mode: options.mode ?? 'native',
        stream: options.stream ?? true,
        maxSteps,
        toolTimeoutMs: options.toolTimeoutMs,
        maxResultChars: options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
        emit: queue.push,
      };
      const context: ToolCallContext = {
        settings,
        messages: [...messages],
        step: 0,
        toolsEnabled: true,
        tools: [],
        toolCalls: [],
        outcomes: [],
        done: false,
        signal: controller.signal,
        cancelled: false,
      };
      let started = false;
      const start = () => {
        if (started) return;
        started = true;
        pipeline.execute(context).then(
          () => queue.end(),
          (error: unknown) => queue.end({ error }),
        );
      };
      return {
        [Symbol.asyncIterator]() {
          start();
          return queue.drain();
        },
        cancelCurrent() {
          const current = context.current;
          if (!current || current.signal.aborted) return false;
          context.cancelled = true;
          current.abort(new Error('cancelled by the user'));
          return true;
        },
        abort(reason) {
          context.cancelled = true;
          controller.abort(reason);
        },
      };
    },
  };
}
