/**
 * Requests the server makes of the client: sampling, form elicitation and URL elicitation (request path
 * and the -32042 error path), with every kind of answer, and clients that cannot or will not answer.
 */

import {
  type CallToolResult,
  type ElicitResult,
  InMemoryTransport,
  type JSONRPCMessage,
  ProtocolError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ELICITATION_SCHEMA } from '../../src/profiles/current/tools/triggerElicitationRequest.js';
import { connectCurrent, currentServer, errorText, text, texts, until } from './helpers.js';

describe('trigger-sampling-request', () => {
  it('round-trips a sampling request and shows the whole result', async () => {
    await using pair = await connectCurrent({}, { capabilities: { sampling: {} } });
    const answer = { role: 'assistant', content: { type: 'text', text: 'Paris.' }, model: 'm-1', stopReason: 'endTurn' } as const;
    pair.client.setRequestHandler('sampling/createMessage', () => answer);
    const result = await pair.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Capital of France?' } });
    const out = text(result);
    expect(out.startsWith('LLM sampling result: \n{\n  "')).toBe(true);
    expect(JSON.parse(out.slice('LLM sampling result: \n'.length))).toEqual(answer);
  });

  it('reports a client’s sampling failure as a tool error and stays up', async () => {
    await using pair = await connectCurrent({}, { capabilities: { sampling: {} } });
    pair.client.setRequestHandler('sampling/createMessage', () => {
      throw new ProtocolError(-1, 'User rejected sampling request');
    });
    // The v2 client sends "User rejected…" (a v1 client sent "MCP error -1: User rejected…"); SDK v2 keeps it as it came
    // (the reference, on SDK 1.x, prefixed it again).
    expect(errorText(await pair.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x' } }))).toBe(
      'User rejected sampling request',
    );
    text(await pair.client.callTool({ name: 'echo', arguments: { message: 'up' } }));
  });

  it('reports a client that declared sampling but cannot sample', async () => {
    await using pair = await connectCurrent({}, { capabilities: { sampling: {} } });
    // SDK v2's error message has no `MCP error <code>:` prefix (SDK 1.x's, and so the reference's, had one).
    expect(errorText(await pair.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x' } }))).toBe(
      'Method not found',
    );
  });

  it('is not offered to a client without sampling', async () => {
    await using pair = await connectCurrent();
    expect((await pair.client.listTools()).tools.map((t) => t.name)).not.toContain('trigger-sampling-request');
    // SDK v2: an unknown tool is a JSON-RPC -32602 error (SDK 1.x answered an isError result).
    await expect(pair.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x' } })).rejects.toMatchObject({
      code: -32602,
      message: 'Tool trigger-sampling-request not found',
    });
  });
});

async function elicit(answer: ElicitResult) {
  await using pair = await connectCurrent({}, { capabilities: { elicitation: {} } });
  const requests: unknown[] = [];
  pair.client.setRequestHandler('elicitation/create', (request) => {
    requests.push(request.params);
    return answer;
  });
  const result = (await pair.client.callTool({ name: 'trigger-elicitation-request', arguments: {} })) as CallToolResult;
  return { requests, all: texts(result) };
}

describe('trigger-elicitation-request', () => {
  it('asks with the reference’s form', async () => {
    const { requests } = await elicit({ action: 'cancel' });
    // No `mode` (form is the default), as the reference sends it.
    expect(requests).toEqual([{ message: 'Please provide inputs for the following fields:', requestedSchema: ELICITATION_SCHEMA }]);
    expect(Object.keys(ELICITATION_SCHEMA.properties)).toEqual([
      'name',
      'check',
      'firstLine',
      'email',
      'homepage',
      'birthdate',
      'integer',
      'number',
      'untitledSingleSelectEnum',
      'untitledMultipleSelectEnum',
      'titledSingleSelectEnum',
      'titledMultipleSelectEnum',
      'legacyTitledEnum',
    ]);
  });

  it('accept: echoes the answered fields in the reference’s order, then the raw result', async () => {
    const answer: ElicitResult = {
      action: 'accept',
      content: {
        name: 'Ada',
        check: false,
        email: 'ada@example.com',
        homepage: 'https://ada.example',
        birthdate: '1815-12-10',
        integer: 7,
        number: 0,
        untitledSingleSelectEnum: 'Ross',
      },
    };
    const { all } = await elicit(answer);
    expect(all).toEqual([
      '✅ User provided the requested information!',
      'User inputs:\n- Name: Ada\n- Agreed to terms: false\n- Email: ada@example.com\n- Homepage: https://ada.example\n- Birthdate: 1815-12-10\n- Favorite Integer: 7\n- Favorite Number: 0',
      `\nRaw result: ${JSON.stringify(answer, null, 2)}`,
    ]);
  });

  it.each([
    ['decline', '❌ User declined to provide the requested information.'],
    ['cancel', '⚠️ User cancelled the elicitation dialog.'],
  ] as const)('%s', async (action, message) => {
    const { all } = await elicit({ action });
    expect(all).toEqual([message, `\nRaw result: ${JSON.stringify({ action }, null, 2)}`]);
  });

  it('accept without content: only the raw result', async () => {
    const { all } = await elicit({ action: 'accept' });
    expect(all).toEqual([`\nRaw result: ${JSON.stringify({ action: 'accept' }, null, 2)}`]);
  });
});

describe('trigger-url-elicitation', () => {
  it('sends the -32042 error with the reference’s message and data', async () => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: { url: {} } } });
    const error = await pair.client
      .callTool({ name: 'trigger-url-elicitation', arguments: { url: 'https://example.com/a', errorPath: true } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const { code, message, data } = error as UrlElicitationRequiredError;
    expect(code).toBe(-32042);
    // On the wire (SDK v2): "This request requires browser-based authorization."; the v2 client keeps it as it came.
    expect(message).toBe('This request requires browser-based authorization.');
    expect(data).toEqual({
      elicitations: [
        {
          mode: 'url',
          url: 'https://modelcontextprotocol.io',
          message: 'Open this link to satisfy the prerequisite, then retry the request.',
          elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        },
      ],
    });
  });

  it('puts exactly the reference’s error on the wire', async () => {
    const server = currentServer();
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    client.onmessage = (m) => void received.push(m);
    await server.connect(serverSide);
    await client.start();
    const send = (m: object) => client.send({ jsonrpc: '2.0', ...m } as JSONRPCMessage);
    await send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { url: {} } }, clientInfo: { name: 'raw', version: '0' } },
    });
    await send({ method: 'notifications/initialized' });
    await send({
      id: 2,
      method: 'tools/call',
      params: { name: 'trigger-url-elicitation', arguments: { url: 'https://example.com', errorPath: true } },
    });
    await until(() => received.some((m) => 'id' in m && m.id === 2), 2000, 'the answer');
    const answer = received.find((m) => 'id' in m && m.id === 2) as { error: { code: number; message: string; data: unknown } };
    expect(answer.error.code).toBe(-32042);
    // SDK 1.x (the reference) put "MCP error -32042: …" on the wire; v2 sends the message alone.
    expect(answer.error.message).toBe('This request requires browser-based authorization.');
    await server.close();
  });

  it('the retry marker is one-shot, and keyed on the url and the elicitationId given', async () => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: { url: {} } } });
    pair.client.setRequestHandler('elicitation/create', () => ({ action: 'accept' }));
    const call = (args: Record<string, unknown>) =>
      pair.client.callTool({ name: 'trigger-url-elicitation', arguments: { errorPath: true, ...args } });
    const outcome = (args: Record<string, unknown>) =>
      call(args).then(
        (r) => texts(r)[0]!.split('\n')[0],
        (e: { code: number }) => e.code,
      );
    const a = { url: 'https://example.com/a' };
    expect(await outcome(a)).toBe(-32042);
    expect(await outcome({ ...a, elicitationId: 'other' })).toBe(-32042); // another key
    expect(await outcome({ url: 'https://example.com/b' })).toBe(-32042); // another key
    expect(await outcome(a)).toBe('✅ User completed the URL elicitation flow.'); // the retry
    expect(await outcome(a)).toBe(-32042); // the marker was used up
    expect(await outcome({ ...a, elicitationId: 'other' })).toBe('✅ User completed the URL elicitation flow.');
  });

  it('refuses a url that is not a URL', async () => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: { url: {} } } });
    expect(errorText(await pair.client.callTool({ name: 'trigger-url-elicitation', arguments: { url: 'nope' } }))).toBe(
      'Input validation error: Invalid arguments for tool trigger-url-elicitation: url: Invalid URL',
    );
  });

  it('is offered only to clients with URL-mode elicitation; a form-only client cannot use it', async () => {
    await using pair = await connectCurrent({}, { capabilities: { elicitation: { form: {} } } });
    await expect(
      pair.client.callTool({ name: 'trigger-url-elicitation', arguments: { url: 'https://example.com' } }),
    ).rejects.toMatchObject({
      code: -32602,
      message: 'Tool trigger-url-elicitation not found',
    });
  });
});
