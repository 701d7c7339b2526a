/** `--json`: the run as JSON for scripts — the model, the messages, every tool call and its outcome. */
import type { Message, RunResult } from '@mcpkit/agent';

export interface Transcript {
  model: string;
  messages: readonly Message[];
  toolCalls: Array<{
    id: string;
    name: string;
    server?: string;
    tool?: string;
    arguments: string;
    status: string;
    isError: boolean;
    result: string;
    durationMs: number;
  }>;
  text: string;
  steps: number;
  cancelled: boolean;
  finishReason: string;
  usage: RunResult['usage'];
}

export function buildTranscript(model: string, messages: readonly Message[], result: RunResult): Transcript {
  return {
    model,
    messages,
    toolCalls: result.outcomes.map((o) => ({
      id: o.call.id,
      name: o.call.name,
      server: o.tool?.server,
      tool: o.tool?.tool,
      arguments: o.call.arguments,
      status: o.status,
      isError: o.isError,
      result: o.text,
      durationMs: o.durationMs,
    })),
    text: result.text,
    steps: result.steps,
    cancelled: result.cancelled,
    finishReason: result.finishReason,
    usage: result.usage,
  };
}
