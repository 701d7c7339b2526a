import { type AnyPromptDefinition, definePrompt } from '@mcpkit/protocol-core';
import { acceptedContent, completable, inputRequired } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { RED_PIXEL_PNG } from './media.js';
import type { ConformanceSession } from './session.js';

/** Scenario `prompts-get-simple`. */
const testSimplePrompt = definePrompt({
  name: 'test_simple_prompt',
  title: 'Simple Test Prompt',
  description: 'A simple prompt without arguments',
  args: {},
  handler: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }),
});

/** What `completion/complete` offers for the two arguments (those starting with what was typed, case-insensitively). */
const ARGUMENT_SUGGESTIONS = {
  arg1: ['hello', 'test', 'testValue1'],
  arg2: ['world', 'test', 'testValue2'],
} as const;

const suggest = (values: readonly string[]) => (typed: string) => values.filter((v) => v.toLowerCase().startsWith(typed.toLowerCase()));

/** Scenarios `prompts-get-with-args` and `completion-complete` (both arguments complete). */
const testPromptWithArguments = definePrompt({
  name: 'test_prompt_with_arguments',
  title: 'Prompt With Arguments',
  description: 'A prompt with two required arguments, both with completions',
  args: {
    arg1: completable(z.string().describe('First test argument'), suggest(ARGUMENT_SUGGESTIONS.arg1)),
    arg2: completable(z.string().describe('Second test argument'), suggest(ARGUMENT_SUGGESTIONS.arg2)),
  },
  handler: ({ arg1, arg2 }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
  }),
});

/** Scenario `prompts-get-embedded-resource`. */
const testPromptWithEmbeddedResource = definePrompt({
  name: 'test_prompt_with_embedded_resource',
  title: 'Prompt With Embedded Resource',
  description: 'A prompt that embeds a text resource under the given URI (with fixed test content), then asks to process it',
  args: { resourceUri: z.string().describe('URI of the resource to embed') },
  handler: ({ resourceUri }) => ({
    messages: [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  }),
});

/** Scenario `prompts-get-with-image`. */
const testPromptWithImage = definePrompt({
  name: 'test_prompt_with_image',
  title: 'Prompt With Image',
  description: 'A prompt that includes image content (a 1×1 red PNG)',
  args: {},
  handler: () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }),
});

/** In `prompts/list` order. */
/**
 * Scenario `input-required-result-non-tool-request` (2026-07-28): `prompts/get` may answer `input_required` too; the
 * prompt asks for its context first (a 2025-era client gets it through real `elicitation/create` requests, the
 * SDK's shim).
 */
const testInputRequiredPrompt = definePrompt({
  name: 'test_input_required_result_prompt',
  title: 'MRTR Prompt',
  description: 'MRTR (SEP-2322): prompt that requires elicitation input before rendering',
  args: {},
  handler: (_args, _session: ConformanceSession, ctx) => {
    const context = acceptedContent<{ context: string }>(ctx.mcpReq.inputResponses, 'user_context')?.context;
    if (typeof context !== 'string') {
      const ask = inputRequired.elicit({
        message: 'What context should the prompt use?',
        requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
      });
      return inputRequired({ inputRequests: { user_context: ask } });
    }
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use the following context: ${context}` } }] };
  },
});

export const prompts: ReadonlyArray<AnyPromptDefinition<ConformanceSession>> = [
  testSimplePrompt,
  testPromptWithArguments,
  testPromptWithEmbeddedResource,
  testPromptWithImage,
  testInputRequiredPrompt,
];
