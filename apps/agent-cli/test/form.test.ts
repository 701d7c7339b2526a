import { PassThrough } from 'node:stream';
import type { PrimitiveSchemaDefinition } from '@mcpkit/agent';
import { describe, expect, it } from 'vitest';
import { type ElicitFormParams, promptElicitation } from '../src/terminal/form.js';
import { createReadlinePrompter } from '../src/terminal/prompter.js';
import { scripted, UNSAFE } from './scriptedPrompter.js';

function form(properties: Record<string, PrimitiveSchemaDefinition>, required: string[] = [], message = 'Tell me'): ElicitFormParams {
  return { message, requestedSchema: { type: 'object', properties, required } };
}

describe('promptElicitation', () => {
  it('asks each field, types the values and sends after confirmation', async () => {
    const s = scripted(['Ada', '36', '1.5', 'y', 'y']);
    const result = await promptElicitation(
      s.prompter,
      'people',
      form(
        {
          name: { type: 'string', title: 'Name', description: 'Your full name' },
          age: { type: 'integer', minimum: 0, maximum: 150 },
          score: { type: 'number' },
          subscribe: { type: 'boolean', title: 'Subscribe' },
        },
        ['name'],
      ),
    );
    expect(result).toEqual({ action: 'accept', content: { name: 'Ada', age: 36, score: 1.5, subscribe: true } });
    expect(s.remaining()).toBe(0);
    const out = s.output();
    expect(out).toContain('people asks: Tell me');
    expect(out).toContain('Name (required) — Your full name');
    expect(out).toContain('integer from 0 to 150');
    expect(out).toContain('Summary for people:');
    expect(out).toContain('  age: 36');
    expect(out).toContain('  Subscribe: yes');
    expect(s.prompts.at(-1)).toBe('Send? [y/N]: ');
  });

  it('takes defaults on empty answers, skips optional fields, and re-asks required ones', async () => {
    const s = scripted(['', '', '', '', 'given', 'y']);
    const result = await promptElicitation(
      s.prompter,
      'srv',
      form(
        {
          colour: { type: 'string', default: 'blue' },
          count: { type: 'integer', default: 3 },
          nickname: { type: 'string' },
          needed: { type: 'string' },
        },
        ['needed'],
      ),
    );
    expect(result).toEqual({ action: 'accept', content: { colour: 'blue', count: 3, needed: 'given' } });
    expect(s.output()).toContain('text [blue]: ');
    expect(s.output()).toContain('✗ a value is required (or :decline)');
    expect(s.output()).toContain('nickname: (not given)');
  });

  it('uses a boolean default and shows it as y/n', async () => {
    const s = scripted(['', 'y']);
    const result = await promptElicitation(s.prompter, 'srv', form({ agree: { type: 'boolean', default: false } }));
    expect(result).toEqual({ action: 'accept', content: { agree: false } });
    expect(s.prompts[0]).toBe('  y/n [no]: ');
  });

  it('says why an answer is invalid and asks again', async () => {
    const s = scripted(['abc', '2.5', '200', '42', 'maybe', 'n', 'y']);
    const result = await promptElicitation(
      s.prompter,
      'srv',
      form({ n: { type: 'integer', minimum: 1, maximum: 100 }, ok: { type: 'boolean' } }, ['n', 'ok']),
    );
    expect(result).toEqual({ action: 'accept', content: { n: 42, ok: false } });
    const errors = s.output().match(/✗ .*/g);
    expect(errors).toEqual([
      '✗ expected an integer from 1 to 100',
      '✗ expected an integer from 1 to 100',
      '✗ expected an integer from 1 to 100',
      '✗ answer y or n',
    ]);
  });

  it('checks string length and formats', async () => {
    const s = scripted([
      'ab',
      'abcdef',
      'abc',
      'not-an-email',
      'ada@example.com',
      'example.com',
      'https://example.com/x',
      '2024-02-30',
      '2024-02-29',
      '2024-02-29 10:00',
      '2024-02-29T10:00:00Z',
      'y',
    ]);
    const result = await promptElicitation(
      s.prompter,
      'srv',
      form(
        {
          code: { type: 'string', minLength: 3, maxLength: 5 },
          email: { type: 'string', format: 'email' },
          site: { type: 'string', format: 'uri' },
          day: { type: 'string', format: 'date' },
          at: { type: 'string', format: 'date-time' },
        },
        ['code', 'email', 'site', 'day', 'at'],
      ),
    );
    expect(result).toEqual({
      action: 'accept',
      content: { code: 'abc', email: 'ada@example.com', site: 'https://example.com/x', day: '2024-02-29', at: '2024-02-29T10:00:00Z' },
    });
    const errors = s.output().match(/✗ .*/g);
    expect(errors).toEqual([
      '✗ expected 3–5 characters, got 2',
      '✗ expected 3–5 characters, got 6',
      '✗ expected an email address like name@example.com',
      '✗ expected a URI with a scheme, like https://example.com',
      '✗ expected a date as YYYY-MM-DD',
      '✗ expected a date and time as YYYY-MM-DDTHH:MM:SSZ (or with an offset such as +02:00)',
    ]);
  });

  it('accepts an enum choice by number, by value, or by label', async () => {
    const colour: PrimitiveSchemaDefinition = { type: 'string', enum: ['red', 'green', 'blue'] };
    const s = scripted(['2', 'BLUE', 'Large', 'y']);
    const result = await promptElicitation(
      s.prompter,
      'srv',
      form(
        {
          first: colour,
          second: colour,
          size: {
            type: 'string',
            oneOf: [
              { const: 's', title: 'Small' },
              { const: 'l', title: 'Large' },
            ],
          },
        },
        ['first', 'second', 'size'],
      ),
    );
    expect(result).toEqual({ action: 'accept', content: { first: 'green', second: 'blue', size: 'l' } });
    expect(s.output()).toContain('  1) red\n  2) green\n  3) blue\n');
    expect(s.output()).toContain('  1) Small (s)\n  2) Large (l)\n');
    expect(s.remaining()).toBe(0);
  });

  it('re-asks an enum answer that is not a choice', async () => {
    const s = scripted(['4', 'purple', '1', 'y']);
    const result = await promptElicitation(s.prompter, 'srv', form({ c: { type: 'string', enum: ['red', 'green', 'blue'] } }, ['c']));
    expect(result).toEqual({ action: 'accept', content: { c: 'red' } });
    expect(s.output().match(/✗ .*/g)).toEqual(['✗ choose 1–3 or one of: red, green, blue', '✗ choose 1–3 or one of: red, green, blue']);
  });

  it('shows legacy enumNames and takes the default choice', async () => {
    const s = scripted(['', 'y']);
    const result = await promptElicitation(
      s.prompter,
      'srv',
      form({ plan: { type: 'string', enum: ['free', 'pro'], enumNames: ['Free plan', 'Pro plan'], default: 'pro' } }),
    );
    expect(result).toEqual({ action: 'accept', content: { plan: 'pro' } });
    expect(s.output()).toContain('  1) Free plan (free)\n  2) Pro plan (pro)\n');
    expect(s.prompts[0]).toBe('  1–2 or a value [Pro plan (pro)]: ');
  });

  it('takes several choices for a multi-select, by number and value, within minItems/maxItems', async () => {
    const s = scripted(['1', '1, 2, 3', '1, nope', '3,1,3', 'b', 'y']);
    const result = await promptElicitation(
      s.prompter,
      'srv',
      form(
        {
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 2, maxItems: 2 },
          titled: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'a', title: 'Alpha' },
                { const: 'b', title: 'Beta' },
              ],
            },
          },
        },
        ['tags', 'titled'],
      ),
    );
    expect(result).toEqual({ action: 'accept', content: { tags: ['c', 'a'], titled: ['b'] } });
    expect(s.output().match(/✗ .*/g)).toEqual([
      '✗ choose exactly 2 of them',
      '✗ choose exactly 2 of them',
      '✗ "nope" is not a choice; use 1–3 or: a, b, c',
    ]);
    expect(s.output()).toContain('  tags: c, a\n  titled: Beta (b)\n');
  });

  it(':decline at a field declines, without asking further', async () => {
    const s = scripted(['Ada', ':decline', 'never asked']);
    const result = await promptElicitation(s.prompter, 'srv', form({ a: { type: 'string' }, b: { type: 'string' } }));
    expect(result).toEqual({ action: 'decline' });
    expect(s.remaining()).toBe(1);
  });

  it(':cancel at a field cancels', async () => {
    const s = scripted([' :CANCEL ']);
    expect(await promptElicitation(s.prompter, 'srv', form({ a: { type: 'string' } }))).toEqual({ action: 'cancel' });
  });

  it('end of input cancels, at a field and at the confirmation', async () => {
    expect(await promptElicitation(scripted([]).prompter, 'srv', form({ a: { type: 'string' } }))).toEqual({ action: 'cancel' });
    expect(await promptElicitation(scripted(['x', null]).prompter, 'srv', form({ a: { type: 'string' } }))).toEqual({ action: 'cancel' });
  });

  it('declines when the user does not confirm, and re-asks an unclear confirmation', async () => {
    expect(await promptElicitation(scripted(['x', 'n']).prompter, 'srv', form({ a: { type: 'string' } }))).toEqual({ action: 'decline' });
    expect(await promptElicitation(scripted(['x', '']).prompter, 'srv', form({ a: { type: 'string' } }))).toEqual({ action: 'decline' });
    const s = scripted(['x', 'sure', 'yes']);
    expect(await promptElicitation(s.prompter, 'srv', form({ a: { type: 'string' } }))).toEqual({ action: 'accept', content: { a: 'x' } });
    expect(s.output()).toContain('✗ answer y or n');
    expect(await promptElicitation(scripted(['x', ':decline']).prompter, 'srv', form({ a: { type: 'string' } }))).toEqual({
      action: 'decline',
    });
  });

  it('confirms a form without fields', async () => {
    const s = scripted(['y']);
    expect(await promptElicitation(s.prompter, 'srv', form({}, [], 'Proceed?'))).toEqual({ action: 'accept', content: {} });
    expect(s.output()).toContain('(no fields)');
  });

  it('sanitises what the server wrote', async () => {
    const s = scripted(['1', 'y']);
    await promptElicitation(
      s.prompter,
      'evil\u001b[2J',
      form(
        { f: { type: 'string', title: 'T\u001b]0;pwned\u0007itle', description: 'd\resc\u202e', enum: ['v\u001b[31m1', 'v2'] } },
        [],
        'hi\u001b[31m there\u0007',
      ),
    );
    const out = s.output();
    expect(out).not.toMatch(UNSAFE);
    expect(out).toContain('evil asks: hi there');
    expect(out).toContain('Title (optional) — desc');
  });

  it('declines a request that is not a form', async () => {
    const s = scripted(['y']);
    const params = { mode: 'url', message: 'Open this', url: 'https://example.com', elicitationId: '1' } as unknown as ElicitFormParams;
    expect(await promptElicitation(s.prompter, 'srv', params)).toEqual({ action: 'decline' });
    const broken = { message: 'x', requestedSchema: { type: 'object', properties: null } } as unknown as ElicitFormParams;
    expect(await promptElicitation(s.prompter, 'srv', broken)).toEqual({ action: 'decline' });
    expect(s.remaining()).toBe(1);
    expect(s.output()).toContain('srv asks: Open this\n  (not a form this terminal can show; declined)');
  });

  it('works through the readline prompter on a pipe (lines written ahead, then end of input)', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
    });
    const prompter = createReadlinePrompter(input, output);
    input.write('Ada\r\n2\ny\n');
    const accepted = await promptElicitation(
      prompter,
      'srv',
      form({ name: { type: 'string' }, size: { type: 'string', enum: ['s', 'm', 'l'] } }, ['name']),
    );
    expect(accepted).toEqual({ action: 'accept', content: { name: 'Ada', size: 'm' } });
    expect(shown).toContain('srv asks: Tell me');
    // A pipe is not echoed, so each answered prompt ends its own line.
    expect(shown).toContain('  text: \n');
    expect(shown).toContain('Send? [y/N]: \n');
    const pending = promptElicitation(prompter, 'srv', form({ name: { type: 'string' } }));
    input.end();
    expect(await pending).toEqual({ action: 'cancel' });
    expect(await prompter.question('again? ')).toBeNull();
    prompter.close();
  });
});
