import { defineTool, textResult } from '@mcpkit/protocol-core';
import {
  acceptedContent,
  type ElicitRequestFormParams,
  type InputRequests,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ConformanceSession } from '../session.js';
import { ASKS_THE_USER } from './testElicitation.js';

/**
 * The multi-round-trip tools of the `input-required-result-*` scenarios (SEP-2322, 2026-07-28), written once in
 * the SDK's `inputRequired` style: each entry reads what the retry carries (`inputResponses`, the verified
 * `requestState`) and asks again for whatever is still missing. A 2025-era client gets the same tools through the
 * SDK's shim (real `elicitation/create`, `sampling/createMessage`, `roots/list` requests, then the handler again).
 * State that crosses rounds is sealed with the session's codec (`session.input.mint`): the SDK verifies it before
 * the handler runs, so a tampered or expired state is a -32602 error and never reaches these handlers.
 */

const askForm = (message: string, field: string, type: 'string' | 'boolean') => {
  const property = type === 'string' ? { type: 'string' as const } : { type: 'boolean' as const };
  const params: Omit<ElicitRequestFormParams, 'mode'> = {
    message,
    requestedSchema: { type: 'object', properties: { [field]: property }, required: [field] },
  };
  return inputRequired.elicit(params);
};

const askName = () => askForm('What is your name?', 'name', 'string');
const askConfirm = () => askForm('Please confirm', 'ok', 'boolean');

/** Whether `state` is a sealed payload this profile minted for `tool`. */
function stateOf(ctx: ServerContext, tool: string): Record<string, unknown> | undefined {
  const state = ctx.mcpReq.requestState<Record<string, unknown>>();
  return state !== undefined && typeof state === 'object' && state.tool === tool ? state : undefined;
}

const sealed = (session: ConformanceSession, ctx: ServerContext, payload: Record<string, unknown>) => session.input.mint(payload, ctx);

/** Scenarios `basic-elicitation`, `result-type`, `missing-input-response`, `ignore-extra-params`, `validate-input`. */
const testInputRequiredElicitation = defineTool({
  name: 'test_input_required_result_elicitation',
  title: 'Input Required: Elicitation',
  description: 'MRTR (SEP-2322): asks for the caller name via an in-band elicitation request',
  input: {},
  annotations: ASKS_THE_USER,
  handler: (_args, _session: ConformanceSession, ctx) => {
    const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, 'user_name')?.name;
    if (typeof name !== 'string') return inputRequired({ inputRequests: { user_name: askName() } });
    return textResult(`Hello, ${name}!`);
  },
});

/** Scenario `basic-sampling`. */
const testInputRequiredSampling = defineTool({
  name: 'test_input_required_result_sampling',
  title: 'Input Required: Sampling',
  description: 'MRTR (SEP-2322): asks for an LLM completion via an in-band sampling request',
  input: {},
  annotations: ASKS_THE_USER,
  handler: (_args, _session: ConformanceSession, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'capital_question');
    if (view.kind !== 'sampling') {
      return inputRequired({
        inputRequests: {
          capital_question: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
            maxTokens: 100,
          }),
        },
      });
    }
    const content = view.result.content;
    const text = !Array.isArray(content) && content.type === 'text' ? content.text : JSON.stringify(view.result);
    return textResult(`Sampling response: ${text}`);
  },
});

/** Scenario `basic-list-roots`. */
const testInputRequiredListRoots = defineTool({
  name: 'test_input_required_result_list_roots',
  title: 'Input Required: Roots',
  description: 'MRTR (SEP-2322): asks for the client roots via an in-band roots/list request',
  input: {},
  annotations: ASKS_THE_USER,
  handler: (_args, _session: ConformanceSession, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'client_roots');
    if (view.kind !== 'roots') return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    return textResult(`Client exposed ${view.roots.length} root(s): ${view.roots.map((root) => root.uri).join(', ')}`);
  },
});

/** Scenario `request-state`: the confirmation comes back with the sealed state minted alongside the question. */
const testInputRequiredRequestState = defineTool({
  name: 'test_input_required_result_request_state',
  title: 'Input Required: Request State',
  description: 'MRTR (SEP-2322): round-trips integrity-protected requestState alongside an elicitation request',
  input: {},
  annotations: ASKS_THE_USER,
  handler: async (_args, session: ConformanceSession, ctx) => {
    const tool = 'test_input_required_result_request_state';
    if (acceptedContent(ctx.mcpReq.inputResponses, 'confirm') === undefined) {
      return inputRequired({ inputRequests: { confirm: askConfirm() }, requestState: await sealed(session, ctx, { tool }) });
    }
    if (stateOf(ctx, tool) === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid requestState: missing or not minted for this tool');
    }
    return textResult('state-ok: requestState verified and confirmation received');
  },
});

/** Scenario `multiple-input-requests`: an elicitation, a sampling and a roots request in one round. */
const testInputRequiredMultipleInputs = defineTool({
  name: 'test_input_required_result_multiple_inputs',
  title: 'Input Required: Several Inputs',
  description: 'MRTR (SEP-2322): asks for elicitation, sampling and roots input in a single round',
  input: {},
  annotations: ASKS_THE_USER,
  handler: async (_args, session: ConformanceSession, ctx) => {
    const responses = ctx.mcpReq.inputResponses;
    const name = acceptedContent<{ name: string }>(responses, 'user_name')?.name;
    const greeting = inputResponse(responses, 'greeting');
    const roots = inputResponse(responses, 'client_roots');
    if (typeof name !== 'string' || greeting.kind !== 'sampling' || roots.kind !== 'roots') {
      return inputRequired({
        inputRequests: {
          user_name: askName(),
          greeting: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          }),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await sealed(session, ctx, { tool: 'test_input_required_result_multiple_inputs' }),
      });
    }
    const content = greeting.result.content;
    const text = !Array.isArray(content) && content.type === 'text' ? content.text : '';
    return textResult(`${text} ${name} — ${roots.roots.length} root(s) visible`);
  },
});

/** Scenario `multi-round`: two questions in sequence; the round and the first answer travel in the sealed state. */
const testInputRequiredMultiRound = defineTool({
  name: 'test_input_required_result_multi_round',
  title: 'Input Required: Two Rounds',
  description: 'MRTR (SEP-2322): two elicitation rounds with evolving requestState before completing',
  input: {},
  annotations: ASKS_THE_USER,
  handler: async (_args, session: ConformanceSession, ctx) => {
    const tool = 'test_input_required_result_multi_round';
    const state = stateOf(ctx, tool);
    const round = typeof state?.round === 'number' ? state.round : 0;
    if (round === 0) {
      return inputRequired({
        inputRequests: { step1: askForm('Step 1: What is your name?', 'name', 'string') },
        requestState: await sealed(session, ctx, { tool, round: 1 }),
      });
    }
    if (round === 1) {
      const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, 'step1')?.name ?? 'unknown';
      return inputRequired({
        inputRequests: { step2: askForm('Step 2: What is your favorite color?', 'color', 'string') },
        requestState: await sealed(session, ctx, { tool, round: 2, name }),
      });
    }
    const color = acceptedContent<{ color: string }>(ctx.mcpReq.inputResponses, 'step2')?.color ?? 'unknown';
    return textResult(`Multi-round complete: ${String(state?.name ?? 'unknown')} likes ${color}`);
  },
});

/** Scenario `tampered-state`: a retry with a forged state is refused by the SDK (-32602) before this runs. */
const testInputRequiredTamperedState = defineTool({
  name: 'test_input_required_result_tampered_state',
  title: 'Input Required: Tampered State',
  description: 'MRTR (SEP-2322): rejects retries whose requestState fails integrity verification',
  input: {},
  annotations: ASKS_THE_USER,
  handler: async (_args, session: ConformanceSession, ctx) => {
    const tool = 'test_input_required_result_tampered_state';
    if (stateOf(ctx, tool) !== undefined && acceptedContent(ctx.mcpReq.inputResponses, 'confirm') !== undefined) {
      return textResult('integrity-ok: requestState verified');
    }
    return inputRequired({ inputRequests: { confirm: askConfirm() }, requestState: await sealed(session, ctx, { tool }) });
  },
});

/** Scenario `capability-check`: asks only for the kinds of input the request's client capabilities cover. */
const testInputRequiredCapabilities = defineTool({
  name: 'test_input_required_result_capabilities',
  title: 'Input Required: Declared Capabilities Only',
  description: 'MRTR (SEP-2322): only requests input kinds the declared client capabilities cover',
  input: {},
  annotations: ASKS_THE_USER,
  handler: (_args, session: ConformanceSession, extra) => {
    if (extra.mcpReq.inputResponses !== undefined) return textResult('Capability-aware input requests fulfilled');
    const declared = session.input.capabilities(extra);
    const inputRequests: InputRequests = {};
    if (declared.elicitation !== undefined) inputRequests.user_name = askName();
    if (declared.sampling !== undefined) {
      inputRequests.greeting = inputRequired.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Generate a short greeting' } }],
        maxTokens: 50,
      });
    }
    if (declared.roots !== undefined) inputRequests.client_roots = inputRequired.listRoots();
    if (Object.keys(inputRequests).length === 0) return textResult('No declared client capability supports an in-band input request');
    return inputRequired({ inputRequests });
  },
});

export const inputRequiredTools = [
  testInputRequiredElicitation,
  testInputRequiredSampling,
  testInputRequiredListRoots,
  testInputRequiredRequestState,
  testInputRequiredMultipleInputs,
  testInputRequiredMultiRound,
  testInputRequiredTamperedState,
  testInputRequiredCapabilities,
] as const;
