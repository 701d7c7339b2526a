// Elicitation, sampling and roots in both eras: 2026-07-28 requests get `input_required` rounds (MRTR) with a sealed
// `requestState`; 2025-era sessions get real server→client requests.
import { connectV2InMemory, type V2Mode } from '@mcpkit/protocol-core/testing';
import type { AuthInfo } from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  createMcpHandler,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createConformanceServer } from '../../src/profiles/conformance/index.js';
import { createSpentStates } from '../../src/shared/spentStates.js';
import { SUITE_CAPABILITIES } from './helpers.js';

/** Every server of a 2026-07-28 flow must share the key and the spent-state ledger: each request gets a fresh server. */
const requestStateKey = 'k'.repeat(32);
const spentRequestStates = createSpentStates();
const factory = () => createConformanceServer({ requestStateKey, spentRequestStates });

/** A v2 client in `mode` whose user and LLM answer every question; counts the questions it was asked. */
async function connectAnswering(mode: V2Mode) {
  const pair = await connectV2InMemory(factory, { mode, capabilities: { ...SUITE_CAPABILITIES, roots: {} } });
  const asked: string[] = [];
  pair.client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(`elicitation: ${request.params.message}`);
    return { action: 'accept', content: { username: 'ada', email: 'ada@example.com', name: 'Ada', ok: true, color: 'green' } };
  });
  pair.client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling');
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } };
  });
  pair.client.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
  });
  return { pair, asked };
}

const text = (result: { content?: unknown }) => (result.content as { type: string; text: string }[])[0]?.text;

describe('conformance profile: client input in both eras', () => {
  for (const mode of ['legacy', '2026-07-28'] as const) {
    it(`test_elicitation and test_sampling get their answers (${mode})`, async () => {
      const { pair, asked } = await connectAnswering(mode);
      await using _ = pair;
      expect(pair.client.getProtocolEra()).toBe(mode === 'legacy' ? 'legacy' : 'modern');
      const elicited = await pair.client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
      expect(text(elicited)).toBe(
        'User response: action=accept, content={"username":"ada","email":"ada@example.com","name":"Ada","ok":true,"color":"green"}',
      );
      const sampled = await pair.client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
      expect(text(sampled)).toBe('LLM response: Paris');
      expect(asked).toEqual(['elicitation: Who are you?', 'sampling']);
    });

    it(`multi-round and multi-input tools complete (${mode})`, async () => {
      const { pair, asked } = await connectAnswering(mode);
      await using _ = pair;
      const multi = await pair.client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
      expect(text(multi)).toBe('Multi-round complete: Ada likes green');
      const several = await pair.client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
      expect(text(several)).toBe('Paris Ada — 1 root(s) visible');
      expect(asked).toEqual([
        'elicitation: Step 1: What is your name?',
        'elicitation: Step 2: What is your favorite color?',
        'elicitation: What is your name?',
        'sampling',
        'roots',
      ]);
    });
  }
});

/** One raw 2026-07-28 `tools/call` through the SDK's handler (one fresh server per request, as over HTTP). */
async function call2026(
  params: Record<string, unknown>,
  authInfo?: AuthInfo,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const handler = createMcpHandler(factory);
  try {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        ...params,
        _meta: {
          [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
          [CLIENT_CAPABILITIES_META_KEY]: SUITE_CAPABILITIES,
          [CLIENT_INFO_META_KEY]: { name: 'raw', version: '0.0.0' },
        },
      },
    };
    const response = await handler.fetch(
      new Request('http://in-process.test/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': String(params.name),
        },
        body: JSON.stringify(body),
      }),
      { authInfo },
    );
    const raw = await response.text();
    const json = raw.startsWith('{')
      ? raw
      : raw
          .split('\n')
          .find((line) => line.startsWith('data:'))!
          .slice(5);
    return JSON.parse(json);
  } finally {
    await handler.close();
  }
}

describe('conformance profile: sealed requestState (2026-07-28)', () => {
  it('the first round asks and seals; a forged state is refused with -32602 before the tool runs', async () => {
    const first = await call2026({ name: 'test_sampling', arguments: { prompt: 'a' } });
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { llm: { method: 'sampling/createMessage' } } });
    const state = String(first.result?.requestState);
    expect(state).toMatch(/^v1\./);
    const forged = `${state.slice(0, -4)}AAAA`;
    const answer = { role: 'assistant', model: 'm', content: { type: 'text', text: 'Paris' } };
    const refused = await call2026({
      name: 'test_sampling',
      arguments: { prompt: 'a' },
      requestState: forged,
      inputResponses: { llm: answer },
    });
    expect(refused.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    const answered = await call2026({
      name: 'test_sampling',
      arguments: { prompt: 'a' },
      requestState: state,
      inputResponses: { llm: answer },
    });
    expect(answered.result).toMatchObject({ content: [{ type: 'text', text: 'LLM response: Paris' }] });
  });

  it('answers count only for the call that asked: another prompt, or no state at all, is asked again', async () => {
    const first = await call2026({ name: 'test_sampling', arguments: { prompt: 'a' } });
    const answer = { role: 'assistant', model: 'm', content: { type: 'text', text: 'Paris' } };
    const otherCall = await call2026({
      name: 'test_sampling',
      arguments: { prompt: 'b' },
      requestState: first.result?.requestState,
      inputResponses: { llm: answer },
    });
    expect(otherCall.result).toMatchObject({ resultType: 'input_required' });
    const unsolicited = await call2026({ name: 'test_sampling', arguments: { prompt: 'a' }, inputResponses: { llm: answer } });
    expect(unsolicited.result).toMatchObject({ resultType: 'input_required' });
  });

  it('a state answers one round: the same retry sent again is refused with -32602', async () => {
    const first = await call2026({ name: 'test_sampling', arguments: { prompt: 'a' } });
    const answer = { role: 'assistant', model: 'm', content: { type: 'text', text: 'Paris' } };
    const retry = {
      name: 'test_sampling',
      arguments: { prompt: 'a' },
      requestState: first.result?.requestState,
      inputResponses: { llm: answer },
    };
    const answered = await call2026(retry);
    expect(answered.result).toMatchObject({ content: [{ type: 'text', text: 'LLM response: Paris' }] });
    const replayed = await call2026(retry);
    expect(replayed.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
  });

  it('two calls asking the same question get distinct states, each usable once', async () => {
    const one = await call2026({ name: 'test_sampling', arguments: { prompt: 'a' } });
    const two = await call2026({ name: 'test_sampling', arguments: { prompt: 'a' } });
    expect(one.result?.requestState).not.toBe(two.result?.requestState);
    const answer = { role: 'assistant', model: 'm', content: { type: 'text', text: 'Paris' } };
    for (const first of [one, two]) {
      const answered = await call2026({
        name: 'test_sampling',
        arguments: { prompt: 'a' },
        requestState: first.result?.requestState,
        inputResponses: { llm: answer },
      });
      expect(answered.result).toMatchObject({ content: [{ type: 'text', text: 'LLM response: Paris' }] });
    }
  });

  it('a state sealed for one user is refused for another user of the same OAuth client', async () => {
    const user = (subject: string): AuthInfo => ({
      token: `t-${subject}`,
      clientId: 'shared-app',
      scopes: ['everything:use'],
      extra: { subject, issuer: 'https://issuer.test' },
    });
    const first = await call2026({ name: 'test_sampling', arguments: { prompt: 'a' } }, user('alice'));
    const answer = { role: 'assistant', model: 'm', content: { type: 'text', text: 'Paris' } };
    const retry = {
      name: 'test_sampling',
      arguments: { prompt: 'a' },
      requestState: first.result?.requestState,
      inputResponses: { llm: answer },
    };
    const stolen = await call2026(retry, user('mallory'));
    expect(stolen.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    const own = await call2026(retry, user('alice'));
    expect(own.result).toMatchObject({ content: [{ type: 'text', text: 'LLM response: Paris' }] });
  });
});
