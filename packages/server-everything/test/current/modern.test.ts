// The `current` profile for 2026-07-28 clients (no `initialize`): the capability-gated tools are listed to a request
// whose `_meta` declares the capability, exactly as a 2025-11-25 session with the same capabilities lists them, and
// they run through `input_required` rounds. `simulate-research-query` runs inline.
import { connectV2InMemory, type V2Mode } from '@mcpkit/protocol-core/testing';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { type McpRequestContext, ProtocolError } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createEverythingServer } from '../../src/server.js';
import { createTestClock } from '../clock.js';
import { FAST, UNGATED_TOOLS } from './helpers.js';

/** Every server of a 2026-07-28 flow must share the key: each request gets a fresh server. */
const requestStateKey = 'k'.repeat(32);

const EVERY_CAPABILITY: ClientCapabilities = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } };

const text = (result: { content?: unknown }) => (result.content as { type: string; text: string }[])[0]?.text;

/** A client of fresh servers (one per request) whose simulations run on `clock`. */
async function connect(mode: V2Mode, capabilities: ClientCapabilities) {
  const clock = createTestClock();
  const factory = (context?: McpRequestContext) =>
    createEverythingServer({ profile: 'current', intervals: FAST, requestStateKey, scheduler: clock.scheduler }, context);
  const pair = await connectV2InMemory(factory, { mode, capabilities });
  const asked: string[] = [];
  // The client answers what it declared (the SDK client refuses a handler for anything else).
  if (capabilities.roots) {
    pair.client.setRequestHandler('roots/list', async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });
  }
  if (capabilities.sampling) {
    pair.client.setRequestHandler('sampling/createMessage', async () => {
      asked.push('sampling');
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } };
    });
  }
  if (capabilities.elicitation) {
    pair.client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(`elicitation ${request.params.mode ?? 'form'}`);
      return request.params.mode === 'url' ? { action: 'accept' } : { action: 'decline' };
    });
  }
  return { pair, asked, clock };
}

async function names(mode: V2Mode, capabilities: ClientCapabilities): Promise<string[]> {
  const { pair } = await connect(mode, capabilities);
  await using _ = pair;
  return (await pair.client.listTools()).tools.map((t) => t.name);
}

describe('current profile, 2026-07-28 client: capability-gated tools', () => {
  it('lists each gated tool to a request that declares its capability, as a 2025 session lists it', async () => {
    const modern = await connect('2026-07-28', EVERY_CAPABILITY);
    await using _m = modern.pair;
    expect(modern.pair.client.getProtocolEra()).toBe('modern');
    const listed = (await modern.pair.client.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual([
      ...UNGATED_TOOLS,
      'get-roots-list',
      'trigger-elicitation-request',
      'trigger-url-elicitation',
      'trigger-sampling-request',
      'simulate-research-query',
    ]);

    // Entry for entry what McpServer lists to a 2025 session with the same capabilities (after `initialized`), but
    // for the 2025 tasks' `execution.taskSupport`, which 2026-07-28 has not (the research runs inline there).
    const legacy = await connect('legacy', EVERY_CAPABILITY);
    await using _l = legacy.pair;
    expect(legacy.pair.client.getProtocolEra()).toBe('legacy');
    const expected = (await legacy.pair.client.listTools()).tools;
    const research = expected.find((t) => t.name === 'simulate-research-query');
    expect(research?.execution).toEqual({ taskSupport: 'required' });
    delete research?.execution;
    expect(listed).toEqual(expected);
  });

  it('lists none of them to a request that declares nothing (simulate-research-query stays)', async () => {
    expect(await names('2026-07-28', {})).toEqual([...UNGATED_TOOLS, 'simulate-research-query']);
    expect(await names('2026-07-28', { elicitation: { form: {} } })).toEqual([
      ...UNGATED_TOOLS,
      'trigger-elicitation-request',
      'simulate-research-query',
    ]);
    expect(await names('2026-07-28', { roots: {}, sampling: {} })).toEqual([
      ...UNGATED_TOOLS,
      'get-roots-list',
      'trigger-sampling-request',
      'simulate-research-query',
    ]);
  });

  it('runs them through input_required rounds', async () => {
    const { pair, asked } = await connect('2026-07-28', EVERY_CAPABILITY);
    await using _ = pair;
    expect(text(await pair.client.callTool({ name: 'get-roots-list', arguments: {} }))).toContain(
      'Current MCP Roots (1 total):\n\n1. work\n   URI: file:///work',
    );
    expect(text(await pair.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Capital?' } }))).toContain('Paris');
    expect(text(await pair.client.callTool({ name: 'trigger-elicitation-request', arguments: {} }))).toContain('declined');
    const url = await pair.client.callTool({
      name: 'trigger-url-elicitation',
      arguments: { url: 'https://example.com/consent', message: 'Consent?', elicitationId: 'e-1' },
    });
    expect(url.isError).toBeFalsy();
    expect(asked).toEqual(['roots', 'sampling', 'elicitation form', 'elicitation url']);
  });

  it('a call without the capability is refused by the SDK with -32021, before the client is asked', async () => {
    const { pair, asked } = await connect('2026-07-28', {});
    await using _ = pair;
    for (const name of ['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request']) {
      const error = await pair.client.callTool({ name, arguments: name === 'trigger-sampling-request' ? { prompt: 'x' } : {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, name).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code, name).toBe(-32021);
    }
    expect(asked).toEqual([]);
  });

  it('simulate-research-query runs inline and answers its report (no 2025 task)', async () => {
    const { pair, clock } = await connect('2026-07-28', EVERY_CAPABILITY);
    await using _ = pair;
    const report = text(
      await clock.run(pair.client.callTool({ name: 'simulate-research-query', arguments: { topic: 'tides', ambiguous: true } })),
    );
    expect(report).toMatch(/^# Research Report: tides\n/);
  });

  it('the trigger-*-async tools (they poll a task the client runs) stay 2025-only', async () => {
    const { pair } = await connect('2026-07-28', EVERY_CAPABILITY);
    await using _ = pair;
    const error = await pair.client.callTool({ name: 'trigger-sampling-request-async', arguments: { prompt: 'x' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as ProtocolError).code).toBe(-32602);
  });
});
