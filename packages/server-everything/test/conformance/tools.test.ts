import type { CreateMessageRequest, ElicitRequestFormParams, LoggingMessageNotification, Progress } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { BEEP_WAV, RED_PIXEL_PNG } from '../../src/profiles/conformance/media.js';
import { JSON_SCHEMA_2020_12_INPUT } from '../../src/profiles/conformance/tools/index.js';
import { call, connect, firstText } from './helpers.js';

/** The tools each server scenario of conformance 0.1.16 calls, in `tools/list` order. */
const SUITE_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_reconnection',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
  // 2026-07-28: the input-required-result-* scenarios (MRTR) and server-stateless's diagnostics.
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  'test_x_mcp_header',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  // The tasks extension's fixtures (the `tasks-*` scenarios).
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
];

describe('conformance profile: tools/list', () => {
  it('lists every tool the suite calls, each with a description, a title, the four hints and an object schema', async () => {
    await using pair = await connect();
    const { tools } = await pair.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(SUITE_TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/\S/);
      expect(tool.title, tool.name).toMatch(/\S/);
      expect(tool.annotations?.title, tool.name).toBe(tool.title);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof tool.annotations?.[hint], `${tool.name}.${hint}`).toBe('boolean');
      }
      expect(tool.annotations?.destructiveHint, tool.name).toBe(false);
      expect(tool.inputSchema.type, tool.name).toBe('object');
    }
    // The ones that reach a person or the client's LLM say so.
    const openWorld = tools.filter((t) => t.annotations?.openWorldHint).map((t) => t.name);
    expect(openWorld).toEqual([
      'test_sampling',
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      ...SUITE_TOOLS.filter((name) => name.startsWith('test_input_required_result_')),
      'test_missing_capability',
      'confirm_delete',
      'multi_input',
      'test_tool_with_task',
    ]);
  });

  it('json_schema_2020_12_tool lists the 2020-12 schema with $schema, $defs and additionalProperties intact (SEP-1613)', async () => {
    await using pair = await connect();
    const { tools } = await pair.client.listTools();
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    expect(tool?.inputSchema).toEqual(JSON_SCHEMA_2020_12_INPUT);
    expect(JSON_SCHEMA_2020_12_INPUT).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { address: { type: 'object' } },
      additionalProperties: false,
    });
  });

  it('json_schema_2020_12_tool validates calls with the same schema: known fields pass, an extra one is refused', async () => {
    await using pair = await connect();
    const ok = await call(pair, 'json_schema_2020_12_tool', { name: 'Ada', address: { street: '1 Main St', city: 'Springfield' } });
    expect(ok.isError).toBeFalsy();
    expect(firstText(ok)).toBe(
      'JSON Schema 2020-12 tool called with: {"name":"Ada","address":{"street":"1 Main St","city":"Springfield"}}',
    );
    const extra = await call(pair, 'json_schema_2020_12_tool', { name: 'Ada', age: 36 });
    expect(extra.isError).toBe(true);
    expect(firstText(extra)).toMatch(/Unrecognized key: "age"/);
  });
});

describe('conformance profile: content tools', () => {
  it('test_simple_text returns the suite text', async () => {
    await using pair = await connect();
    expect(await call(pair, 'test_simple_text')).toEqual({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
  });

  it('test_image_content returns a 1×1 PNG', async () => {
    await using pair = await connect();
    expect(await call(pair, 'test_image_content')).toEqual({ content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] });
    const png = Buffer.from(RED_PIXEL_PNG, 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1, 1]);
  });

  it('test_audio_content returns a well-formed audio/wav file', async () => {
    await using pair = await connect();
    expect(await call(pair, 'test_audio_content')).toEqual({ content: [{ type: 'audio', data: BEEP_WAV, mimeType: 'audio/wav' }] });
    const wav = Buffer.from(BEEP_WAV, 'base64');
    expect([wav.toString('ascii', 0, 4), wav.toString('ascii', 8, 12), wav.toString('ascii', 36, 40)]).toEqual(['RIFF', 'WAVE', 'data']);
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    expect({ format: wav.readUInt16LE(20), channels: wav.readUInt16LE(22), rate: wav.readUInt32LE(24) }).toEqual({
      format: 1,
      channels: 1,
      rate: 8000,
    });
  });

  it('test_embedded_resource embeds the suite resource', async () => {
    await using pair = await connect();
    expect(await call(pair, 'test_embedded_resource')).toEqual({
      content: [
        {
          type: 'resource',
          resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
        },
      ],
    });
  });

  it('test_multiple_content_types returns text, image and resource, in that order', async () => {
    await using pair = await connect();
    const result = await call(pair, 'test_multiple_content_types');
    expect(result.content.map((c) => c.type)).toEqual(['text', 'image', 'resource']);
    expect(result.content[0]).toEqual({ type: 'text', text: 'Multiple content types test:' });
    expect(result.content[2]).toEqual({
      type: 'resource',
      resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
    });
  });

  it('test_error_handling is an isError result with the suite message, not a JSON-RPC error', async () => {
    await using pair = await connect();
    expect(await call(pair, 'test_error_handling')).toEqual({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    });
  });
});

describe('conformance profile: logging and progress', () => {
  it('test_tool_with_logging sends three info messages before its result', async () => {
    await using pair = await connect({ intervals: {} });
    const logs: LoggingMessageNotification['params'][] = [];
    pair.client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params);
    });
    await pair.client.setLoggingLevel('debug');
    const result = await call(pair, 'test_tool_with_logging');
    expect(firstText(result)).toBe('Tool with logging executed successfully (3 of 3 log messages sent)');
    expect(logs).toEqual([
      { level: 'info', logger: 'everything-conformance', data: 'Tool execution started' },
      { level: 'info', logger: 'everything-conformance', data: 'Tool processing data' },
      { level: 'info', logger: 'everything-conformance', data: 'Tool execution completed' },
    ]);
  });

  it('logging/setLevel answers {} and filters: at "warning" the info messages are not sent', async () => {
    await using pair = await connect();
    const logs: unknown[] = [];
    pair.client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params);
    });
    expect(await pair.client.setLoggingLevel('warning')).toEqual({});
    expect(firstText(await call(pair, 'test_tool_with_logging'))).toBe(
      'Tool with logging executed successfully (0 of 3 log messages sent)',
    );
    expect(logs).toEqual([]);
  });

  it('test_tool_with_progress reports 0, 50 and 100 of 100 for the request progress token', async () => {
    await using pair = await connect();
    const progress: Progress[] = [];
    const result = await pair.clock!.run(
      pair.client.callTool(
        { name: 'test_tool_with_progress', arguments: {} },
        {
          onprogress: (p) => progress.push(p),
        },
      ),
    );
    expect(progress).toEqual([
      { progress: 0, total: 100, message: 'Completed step 0 of 100' },
      { progress: 50, total: 100, message: 'Completed step 50 of 100' },
      { progress: 100, total: 100, message: 'Completed step 100 of 100' },
    ]);
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Tool with progress executed successfully \(progress 0, 50, 100 of 100/) },
    ]);
  });

  it('test_tool_with_progress without a progress token sends no progress and says so', async () => {
    await using pair = await connect();
    expect(firstText(await call(pair, 'test_tool_with_progress'))).toBe(
      'Tool with progress executed successfully (no progress token in the request, so no progress notifications)',
    );
  });
});

describe('conformance profile: sampling and elicitation', () => {
  it('test_sampling sends the prompt to the client LLM (100 tokens) and returns its answer', async () => {
    await using pair = await connect();
    const requests: CreateMessageRequest['params'][] = [];
    pair.client.setRequestHandler('sampling/createMessage', (request) => {
      requests.push(request.params);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'This is a test response from the client' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    });
    const result = await call(pair, 'test_sampling', { prompt: 'Test prompt for sampling' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'LLM response: This is a test response from the client' }] });
    expect(requests).toEqual([
      { messages: [{ role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } }], maxTokens: 100 },
    ]);
  });

  it('test_sampling and test_elicitation refuse, as tool errors, a client without the capability', async () => {
    await using pair = await connect({}, { capabilities: {} });
    const sampling = await call(pair, 'test_sampling', { prompt: 'x' });
    expect(sampling.isError).toBe(true);
    expect(firstText(sampling)).toBe('The client does not support sampling: it did not declare the "sampling" capability in initialize');
    const elicitation = await call(pair, 'test_elicitation', { message: 'x' });
    expect(elicitation.isError).toBe(true);
    expect(firstText(elicitation)).toBe(
      'The client does not support elicitation: it did not declare the "elicitation" capability in initialize',
    );
  });

  /** Connects a client that answers every elicitation with `answer` and records the requests. */
  async function elicit(
    tool: string,
    args: Record<string, unknown>,
    answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> },
  ) {
    const pair = await connect();
    const requests: ElicitRequestFormParams[] = [];
    pair.client.setRequestHandler('elicitation/create', (request) => {
      requests.push(request.params as ElicitRequestFormParams);
      return answer as never;
    });
    const result = await call(pair, tool, args);
    await pair[Symbol.asyncDispose]();
    return { requests, result };
  }

  it('test_elicitation asks for username and email with the given message and reports the answer', async () => {
    const { requests, result } = await elicit(
      'test_elicitation',
      { message: 'Please provide your information' },
      { action: 'accept', content: { username: 'testuser', email: 'test@example.com' } },
    );
    expect(requests).toEqual([
      {
        message: 'Please provide your information',
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      },
    ]);
    expect(firstText(result)).toBe('User response: action=accept, content={"username":"testuser","email":"test@example.com"}');
  });

  it('test_elicitation reports a declined request without content', async () => {
    const { result } = await elicit('test_elicitation', { message: 'x' }, { action: 'decline' });
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toBe('User response: action=decline, content={}');
  });

  it('test_elicitation_sep1034_defaults sends a default for each primitive type', async () => {
    const answer = { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false };
    const { requests, result } = await elicit('test_elicitation_sep1034_defaults', {}, { action: 'accept', content: answer });
    const properties = requests[0]?.requestedSchema.properties;
    expect(properties).toEqual({
      name: { type: 'string', description: 'User name', default: 'John Doe' },
      age: { type: 'integer', description: 'User age', default: 30 },
      score: { type: 'number', description: 'User score', default: 95.5 },
      status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', description: 'Verification status', default: true },
    });
    expect(firstText(result)).toBe(`Elicitation completed: action=accept, content=${JSON.stringify(answer)}`);
  });

  it('test_elicitation_sep1330_enums sends the five enum forms of SEP-1330', async () => {
    const { requests, result } = await elicit('test_elicitation_sep1330_enums', {}, { action: 'cancel' });
    const p = requests[0]?.requestedSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(p)).toEqual(['untitledSingle', 'titledSingle', 'legacyEnum', 'untitledMulti', 'titledMulti']);
    expect(p.untitledSingle).toMatchObject({ type: 'string', enum: ['option1', 'option2', 'option3'] });
    expect(p.untitledSingle).not.toHaveProperty('oneOf');
    expect(p.titledSingle).toMatchObject({
      type: 'string',
      oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2' }, { const: 'value3' }],
    });
    expect(p.titledSingle).not.toHaveProperty('enum');
    expect(p.legacyEnum).toMatchObject({ enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] });
    expect(p.untitledMulti).toMatchObject({ type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } });
    expect(p.titledMulti).toMatchObject({ type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, {}, {}] } });
    expect(firstText(result)).toBe('Elicitation completed: action=cancel, content={}');
  });
});

describe('conformance profile: test_reconnection without a resumable stream', () => {
  it('in-process it keeps the stream, says so, and still announces itself in the log', async () => {
    await using pair = await connect();
    const logs: unknown[] = [];
    pair.client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params.data);
    });
    const result = await call(pair, 'test_reconnection');
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toMatch(/^Reconnection test completed without closing the stream/);
    expect(logs).toEqual([
      'test_reconnection: this response stream may close now; if it does, reconnect with Last-Event-ID to get the result',
    ]);
  });
});
