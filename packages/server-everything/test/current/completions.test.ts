/** `completion/complete` for the prompts' arguments (context-dependent for completable-prompt) and the templates. */
import { describe, expect, it } from 'vitest';
import { connectCurrent } from './helpers.js';

type Pair = Awaited<ReturnType<typeof connectCurrent>>;

const completePrompt = async (pair: Pair, prompt: string, name: string, value: string, context?: Record<string, string>) =>
  (
    await pair.client.complete({
      ref: { type: 'ref/prompt', name: prompt },
      argument: { name, value },
      ...(context ? { context: { arguments: context } } : {}),
    })
  ).completion;

describe('completions', () => {
  it('advertises the completions capability', async () => {
    await using pair = await connectCurrent();
    expect(pair.client.getServerCapabilities()?.completions).toEqual({});
  });

  it('completes departments by prefix, case-sensitively', async () => {
    await using pair = await connectCurrent();
    expect(await completePrompt(pair, 'completable-prompt', 'department', '')).toEqual({
      values: ['Engineering', 'Sales', 'Marketing', 'Support'],
      total: 4,
      hasMore: false,
    });
    expect((await completePrompt(pair, 'completable-prompt', 'department', 'S')).values).toEqual(['Sales', 'Support']);
    expect((await completePrompt(pair, 'completable-prompt', 'department', 's')).values).toEqual([]);
  });

  it('completes team members from the department already chosen', async () => {
    await using pair = await connectCurrent();
    expect((await completePrompt(pair, 'completable-prompt', 'name', '', { department: 'Engineering' })).values).toEqual([
      'Alice',
      'Bob',
      'Charlie',
    ]);
    expect((await completePrompt(pair, 'completable-prompt', 'name', 'E', { department: 'Sales' })).values).toEqual(['Eve']);
    expect((await completePrompt(pair, 'completable-prompt', 'name', '', { department: 'Support' })).values).toEqual([
      'John',
      'Kim',
      'Lee',
    ]);
    expect((await completePrompt(pair, 'completable-prompt', 'name', '')).values).toEqual([]);
    expect((await completePrompt(pair, 'completable-prompt', 'name', '', { department: 'toString' })).values).toEqual([]);
  });

  it('completes the resource prompt’s type and id', async () => {
    await using pair = await connectCurrent();
    expect((await completePrompt(pair, 'resource-prompt', 'resourceType', 'T')).values).toEqual(['Text']);
    expect((await completePrompt(pair, 'resource-prompt', 'resourceId', '42')).values).toEqual(['42']);
    expect((await completePrompt(pair, 'resource-prompt', 'resourceId', '4.2')).values).toEqual([]);
  });

  it('completes the templates’ resourceId with positive integers only', async () => {
    await using pair = await connectCurrent();
    for (const kind of ['text', 'blob']) {
      const complete = async (value: string) =>
        (
          await pair.client.complete({
            ref: { type: 'ref/resource', uri: `demo://resource/dynamic/${kind}/{resourceId}` },
            argument: { name: 'resourceId', value },
          })
        ).completion.values;
      expect(await complete('12')).toEqual(['12']);
      expect(await complete('0')).toEqual([]);
      expect(await complete('x')).toEqual([]);
    }
  });
});
