/** The reference's own suite, ported (see ./helpers.ts): upstream `prompts.test.ts`. */
import { describe, expect, it } from 'vitest';
import { prompt } from './helpers.js';

describe('prompts.test.ts (11)', () => {
  it('6.3.1 simple-prompt', async () => {
    expect(await prompt('simple-prompt')).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } }],
    });
  });
  it('6.3.2 args-prompt with a city', async () => {
    const { messages } = await prompt('args-prompt', { city: 'San Francisco' });
    expect(messages[0]!.content).toEqual({ type: 'text', text: "What's weather in San Francisco?" });
  });
  it('6.3.3 args-prompt with a city and a state', async () => {
    const { messages } = await prompt('args-prompt', { city: 'San Francisco', state: 'California' });
    expect(messages[0]!.content).toEqual({ type: 'text', text: "What's weather in San Francisco, California?" });
  });
  it('6.3.4 args-prompt without a state has no comma', async () => {
    const { messages } = await prompt('args-prompt', { city: 'New York' });
    expect(messages[0]).toEqual({ role: 'user', content: { type: 'text', text: "What's weather in New York?" } });
  });
  it('6.3.5 completable-prompt', async () => {
    const { messages } = await prompt('completable-prompt', { department: 'Engineering', name: 'Alice' });
    expect(messages[0]!.content).toEqual({ type: 'text', text: 'Please promote Alice to the head of the Engineering team.' });
  });
  it('6.3.6 completable-prompt with other departments', async () => {
    for (const [department, name] of [
      ['Sales', 'David'],
      ['Marketing', 'Grace'],
    ] as const) {
      const { messages } = await prompt('completable-prompt', { department, name });
      expect(messages[0]!.role).toBe('user');
      expect((messages[0]!.content as { text: string }).text).toContain(department);
      expect((messages[0]!.content as { text: string }).text).toContain(name);
    }
  });
  it('6.3.7 resource-prompt Text 1', async () => {
    const { messages } = await prompt('resource-prompt', { resourceType: 'Text', resourceId: '1' });
    expect(messages).toHaveLength(2);
    expect((messages[0]!.content as { text: string }).text).toBe(
      'This prompt includes the Text resource with id: 1. Please analyze the following resource:',
    );
    expect(messages[1]!.content.type).toBe('resource');
    expect((messages[1]!.content as { resource: { uri: string } }).resource.uri).toBe('demo://resource/dynamic/text/1');
  });
  it('6.3.8 resource-prompt Blob 5', async () => {
    const { messages } = await prompt('resource-prompt', { resourceType: 'Blob', resourceId: '5' });
    expect((messages[0]!.content as { text: string }).text).toContain('Blob');
    expect((messages[1]!.content as { resource: { uri: string } }).resource.uri).toContain('blob/5');
  });
  it('6.3.9 resource-prompt refuses an invalid resourceType', async () => {
    await expect(prompt('resource-prompt', { resourceType: 'Invalid', resourceId: '1' })).rejects.toMatchObject({
      code: -32603,
      message: 'Invalid resourceType: Invalid. Must be Text or Blob.',
    });
  });
  it('6.3.10 resource-prompt refuses resourceId -1, 0 and abc', async () => {
    for (const id of ['-1', '0', 'abc']) {
      await expect(prompt('resource-prompt', { resourceType: 'Text', resourceId: id })).rejects.toThrow(
        `Invalid resourceId: ${id}. Must be a finite positive integer.`,
      );
    }
  });
  it('6.3.11 resource-prompt returns a text message then a resource message', async () => {
    const { messages } = await prompt('resource-prompt', { resourceType: 'Text', resourceId: '3' });
    expect(messages.map((m) => [m.role, m.content.type])).toEqual([
      ['user', 'text'],
      ['user', 'resource'],
    ]);
  });
});
