/**
 * The seed's tool-call pipeline as one bounded step loop. Each step calls the processors in order:
 * prepare the tools → build the request (conversation entry) → read the reply as it streams
 * (sideband) → extract the calls → execute them (with approval) → format the results. The seed's
 * depth limit is the loop's bound: after `maxSteps` tool rounds one more call is made with the tools
 * withheld, so there is always an answer. Everything the host sees is an event this generator yields.
 */

import { createToolOffer } from '../tools/offer.js';
import type { FinishReason, Message } from '../types.js';
import { linkedAbort } from './abort.js';
import type { AgentEvent, PipelineSettings, ReplyState, RunControl } from './context.js';
import { conversationEntry } from './processors/conversationEntry.js';
import { execute } from './processors/execute.js';
import { extract } from './processors/extract.js';
import { formatResults } from './processors/formatResults.js';
import { prepareTools } from './processors/prepareTools.js';
import { sideband } from './processors/sideband.js';

/** Run the loop on `history` (not modified); the messages it adds arrive as `message` events. */
export async function* runToolLoop(
  settings: PipelineSettings,
  history: readonly Message[],
  control: RunControl,
): AsyncGenerator<AgentEvent> {
  const messages = [...history];
  const offer = createToolOffer(settings.router, settings.toolSearch, history);
  let finishReason: FinishReason = 'unknown';
  let step = 0;
  for (; step <= settings.maxSteps; step++) {
    const final = step === settings.maxSteps;
    const tools = prepareTools(offer, final);
    const call = linkedAbort(control.signal);
    control.current = call.controller;
    const request = conversationEntry(settings, messages, tools, final, call.controller.signal);
    yield { type: 'model_call', step, final };
    let reply: ReplyState;
    try {
      reply = yield* sideband(settings.llm.chat(request), settings.mode, control, call.controller);
    } finally {
      call.release();
      control.current = undefined;
    }
    finishReason = reply.finishReason;

    const { message, calls, dropped } = extract(reply, { final, cancelled: control.cancelled });
    if (dropped > 0) yield { type: 'notice', text: `the model asked for ${dropped} tool call(s) after the step limit; not run` };
    messages.push(message);
    yield { type: 'message', message };
    if (calls.length === 0) break;

    const outcomes = yield* execute(settings, control, offer, calls);
    for (const result of formatResults(outcomes)) {
      messages.push(result);
      yield { type: 'message', message: result };
    }
    if (control.cancelled) {
      step += 1;
      break;
    }
  }
  yield { type: 'done', steps: step, cancelled: control.cancelled, finishReason };
}
