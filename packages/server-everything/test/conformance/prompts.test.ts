import { describe, expect, it } from 'vitest';
import { RED_PIXEL_PNG } from '../../src/profiles/conformance/media.js';
import { connect } from './helpers.js';

describe('conformance profile: prompts', () => {
  it('lists the five suite prompts with descriptions and their arguments', async () => {
    await using pair = await connect();
    const { prompts } = await pair.client.listPrompts();
    expect(prompts.map((p) => [p.name, (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`)])).toEqual([
      ['test_simple_prompt', []],
      ['test_prompt_with_arguments', ['arg1', 'arg2']],
      ['test_prompt_with_embedded_resource', ['resourceUri']],
      ['test_prompt_with_image', []],
      ['test_input_required_result_prompt', []],
    ]);
    for (const p of prompts) expect(p.description, p.name).toMatch(/\S/);
  });

  it('test_simple_prompt', async () => {
    await using pair = await connect();
    expect((await pair.client.getPrompt({ name: 'test_simple_prompt' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
  });

  it('test_prompt_with_arguments substitutes both arguments; a missing one is refused', async () => {
    await using pair = await connect();
    expect(
      (await pair.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } })).messages,
    ).toEqual([{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" } }]);
    await expect(pair.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello' } })).rejects.toThrow(/arg2/);
  });

  it('test_prompt_with_embedded_resource embeds a resource under the given URI', async () => {
    await using pair = await connect();
    const { messages } = await pair.client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://example-resource' },
    });
    expect(messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ]);
  });

  it('test_prompt_with_image has an image then a text message', async () => {
    await using pair = await connect();
    expect((await pair.client.getPrompt({ name: 'test_prompt_with_image' })).messages).toEqual([
      { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ]);
  });
});

describe('conformance profile: completion/complete', () => {
  it('declares completions and completes both prompt arguments by prefix', async () => {
    await using pair = await connect();
    expect(pair.client.getServerCapabilities()?.completions).toEqual({});
    const complete = async (name: string, value: string) =>
      (await pair.client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name, value } }))
        .completion;
    expect(await complete('arg1', 'test')).toEqual({ values: ['test', 'testValue1'], total: 2, hasMore: false });
    expect(await complete('arg1', 'HE')).toEqual({ values: ['hello'], total: 1, hasMore: false });
    expect(await complete('arg2', '')).toEqual({ values: ['world', 'test', 'testValue2'], total: 3, hasMore: false });
    expect(await complete('arg2', 'zzz')).toEqual({ values: [], total: 0, hasMore: false });
  });
});
