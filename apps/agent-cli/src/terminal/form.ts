/**
 * Elicitation on the terminal: a server asks the user for a few values (`elicitation/create`, form
 * mode) and the terminal asks for them one by one, checks each against the requested schema, shows
 * a summary and asks before sending. Everything the server wrote is sanitised before it is shown.
 *
 * At any prompt `:decline` declines the request and `:cancel` (or end of input, or Ctrl-C) cancels
 * it. An empty answer takes the field's default, skips an optional field, or asks again for a
 * required one.
 */
import type { ElicitResult, PrimitiveSchemaDefinition } from '@mcpkit/agent';
import type { Prompter } from './prompter.js';
import { truncate } from './render.js';
import { sanitizeForTerminal } from './sanitize.js';

/** The form-mode parameters of `elicitation/create`. */
export interface ElicitFormParams {
  message: string;
  requestedSchema: {
    type: 'object';
    properties: Record<string, PrimitiveSchemaDefinition>;
    required?: string[];
  };
}

/** One answered value, typed as the schema asks. */
type ElicitValue = string | number | boolean | string[];

interface Choice {
  value: string;
  label?: string;
}

type FieldKind =
  | { kind: 'string'; minLength?: number; maxLength?: number; format?: string }
  | { kind: 'number'; integer: boolean; minimum?: number; maximum?: number }
  | { kind: 'boolean' }
  | { kind: 'enum'; choices: Choice[] }
  | { kind: 'multi'; choices: Choice[]; minItems?: number; maxItems?: number };

type Field = FieldKind & {
  key: string;
  label: string;
  description?: string;
  required: boolean;
  default?: ElicitValue;
};

type Parsed = { value: ElicitValue } | { error: string };

/** What one prompt gave: text, or the user's decision to stop. */
type Answer = { text: string } | { stop: 'decline' | 'cancel' };

const HELP_LINE = '  (:decline refuses, :cancel dismisses; an empty answer takes the default, or skips an optional field)\n';

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** Choices from `enum` (+ legacy `enumNames`), or from titled `oneOf`/`anyOf` entries. */
function choicesOf(schema: Record<string, unknown>): Choice[] | undefined {
  const values = strings(schema.enum);
  if (values) {
    const names = strings(schema.enumNames);
    return values.map((value, i) => ({ value, label: names?.[i] }));
  }
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!titled) return undefined;
  const choices: Choice[] = [];
  for (const entry of titled) {
    if (entry === null || typeof entry !== 'object') continue;
    const option = entry as Record<string, unknown>;
    const value = text(option.const);
    if (value !== undefined) choices.push({ value, label: text(option.title) });
  }
  return choices.length > 0 ? choices : undefined;
}

function kindOf(schema: Record<string, unknown>): FieldKind {
  const type = schema.type;
  if (type === 'boolean') return { kind: 'boolean' };
  if (type === 'number' || type === 'integer') {
    return { kind: 'number', integer: type === 'integer', minimum: finite(schema.minimum), maximum: finite(schema.maximum) };
  }
  if (type === 'array') {
    const items = schema.items !== null && typeof schema.items === 'object' ? (schema.items as Record<string, unknown>) : {};
    const choices = choicesOf(items);
    if (choices) return { kind: 'multi', choices, minItems: finite(schema.minItems), maxItems: finite(schema.maxItems) };
  }
  const choices = choicesOf(schema);
  if (choices) return { kind: 'enum', choices };
  // Strings, and anything the spec does not allow here, are asked for as text.
  return { kind: 'string', minLength: finite(schema.minLength), maxLength: finite(schema.maxLength), format: text(schema.format) };
}

/** A default is used only when it has the type the field asks for. */
function defaultOf(field: FieldKind, value: unknown): ElicitValue | undefined {
  switch (field.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'number':
      return finite(value);
    case 'multi':
      return strings(value);
    default:
      return text(value);
  }
}

function fieldsOf(schema: ElicitFormParams['requestedSchema']): Field[] {
  const required = new Set(strings(schema.required) ?? []);
  return Object.entries(schema.properties).map(([key, raw]) => {
    const property = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    const kind = kindOf(property);
    return {
      ...kind,
      key,
      label: text(property.title) || key,
      description: text(property.description),
      required: required.has(key),
      default: defaultOf(kind, property.default),
    };
  });
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min}${unit}` : `${min}–${max}${unit}`;
  if (min !== undefined) return `at least ${min}${unit}`;
  if (max !== undefined) return `at most ${max}${unit}`;
  return '';
}

/** ` from 1 to 10`, ` of at least 1`, ` of at most 10`, or nothing. */
function numberBounds(field: { minimum?: number; maximum?: number }): string {
  const { minimum, maximum } = field;
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` of at least ${minimum}`;
  if (maximum !== undefined) return ` of at most ${maximum}`;
  return '';
}

const FORMAT_HINT: Record<string, string> = {
  email: 'email address',
  uri: 'URI such as https://example.com',
  date: 'date YYYY-MM-DD',
  'date-time': 'date and time YYYY-MM-DDTHH:MM:SSZ',
};

/** What the prompt says about the expected answer. */
function hintOf(field: Field): string {
  switch (field.kind) {
    case 'boolean':
      return 'y/n';
    case 'number':
      return `${field.integer ? 'integer' : 'number'}${numberBounds(field)}`;
    case 'enum':
      return `1–${field.choices.length} or a value`;
    case 'multi': {
      const count = range(field.minItems, field.maxItems, ' items');
      return `numbers or values, comma-separated${count ? `, ${count}` : ''}`;
    }
    default: {
      const length = range(field.minLength, field.maxLength, ' characters');
      const format = field.format ? FORMAT_HINT[field.format] : undefined;
      return [format ?? 'text', length].filter(Boolean).join(', ');
    }
  }
}

function showValue(field: Field, value: ElicitValue): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map((v) => showChoice(field, v)).join(', ') || '(none)';
  if (field.kind === 'enum') return showChoice(field, String(value));
  return sanitizeForTerminal(truncate(String(value), 200));
}

function showChoice(field: Field, value: string): string {
  const choice = field.kind === 'enum' || field.kind === 'multi' ? field.choices.find((c) => c.value === value) : undefined;
  const safe = sanitizeForTerminal(value);
  return choice?.label && choice.label !== value ? `${sanitizeForTerminal(choice.label)} (${safe})` : safe;
}

function isValidDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Basic format checks (not full RFC validation): the answer must look like what the format names. */
function formatError(format: string | undefined, value: string): string | undefined {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+$/.test(value) ? undefined : 'expected an email address like name@example.com';
    case 'uri': {
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) return 'expected a URI with a scheme, like https://example.com';
      try {
        new URL(value);
        return undefined;
      } catch {
        return 'expected a URI with a scheme, like https://example.com';
      }
    }
    case 'date': {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
      return m && isValidDate(Number(m[1]), Number(m[2]), Number(m[3])) ? undefined : 'expected a date as YYYY-MM-DD';
    }
    case 'date-time': {
      const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(value);
      const ok =
        m !== null && isValidDate(Number(m[1]), Number(m[2]), Number(m[3])) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 61;
      return ok ? undefined : 'expected a date and time as YYYY-MM-DDTHH:MM:SSZ (or with an offset such as +02:00)';
    }
    default:
      return undefined;
  }
}

/** The choice an answer names: its exact value, its number in the list, or a unique case-insensitive value or label. */
function pickChoice(choices: Choice[], answer: string): string | undefined {
  const exact = choices.find((c) => c.value === answer);
  if (exact) return exact.value;
  if (/^\d+$/.test(answer)) {
    const index = Number(answer);
    if (index >= 1 && index <= choices.length) return choices[index - 1]?.value;
  }
  const lower = answer.toLowerCase();
  const loose = choices.filter((c) => c.value.toLowerCase() === lower || c.label?.toLowerCase() === lower);
  return loose.length === 1 ? loose[0]?.value : undefined;
}

function listChoices(choices: Choice[]): string {
  const values = choices.map((c) => c.value);
  const shown = truncate(values.join(', '), 200);
  return sanitizeForTerminal(shown);
}

/** Check one non-empty answer against its field. */
function parseAnswer(field: Field, answer: string): Parsed {
  switch (field.kind) {
    case 'boolean': {
      const lower = answer.toLowerCase();
      if (['y', 'yes', 'true', '1'].includes(lower)) return { value: true };
      if (['n', 'no', 'false', '0'].includes(lower)) return { value: false };
      return { error: 'answer y or n' };
    }
    case 'number': {
      const expected = `expected ${field.integer ? 'an integer' : 'a number'}${numberBounds(field)}`;
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(answer)) return { error: expected };
      const value = Number(answer);
      if (!Number.isFinite(value) || (field.integer && !Number.isInteger(value))) return { error: expected };
      if ((field.minimum !== undefined && value < field.minimum) || (field.maximum !== undefined && value > field.maximum)) {
        return { error: expected };
      }
      return { value };
    }
    case 'enum': {
      const value = pickChoice(field.choices, answer);
      return value !== undefined ? { value } : { error: `choose 1–${field.choices.length} or one of: ${listChoices(field.choices)}` };
    }
    case 'multi': {
      const whole = pickChoice(field.choices, answer);
      const parts =
        whole !== undefined
          ? [answer]
          : answer
              .split(',')
              .map((p) => p.trim())
              .filter((p) => p !== '');
      const picked: string[] = [];
      for (const part of parts) {
        const value = pickChoice(field.choices, part);
        if (value === undefined) {
          return {
            error: `"${sanitizeForTerminal(truncate(part, 40))}" is not a choice; use 1–${field.choices.length} or: ${listChoices(field.choices)}`,
          };
        }
        if (!picked.includes(value)) picked.push(value);
      }
      if (
        (field.minItems !== undefined && picked.length < field.minItems) ||
        (field.maxItems !== undefined && picked.length > field.maxItems)
      ) {
        return { error: `choose ${range(field.minItems, field.maxItems, '')} of them` };
      }
      return { value: picked };
    }
    default: {
      const length = [...answer].length;
      if ((field.minLength !== undefined && length < field.minLength) || (field.maxLength !== undefined && length > field.maxLength)) {
        return { error: `expected ${range(field.minLength, field.maxLength, ' characters')}, got ${length}` };
      }
      const problem = formatError(field.format, answer);
      return problem ? { error: problem } : { value: answer };
    }
  }
}

async function ask(prompter: Prompter, prompt: string): Promise<Answer> {
  const line = await prompter.question(prompt);
  if (line === null) return { stop: 'cancel' };
  const answer = line.trim();
  const command = answer.toLowerCase();
  if (command === ':cancel') return { stop: 'cancel' };
  if (command === ':decline') return { stop: 'decline' };
  return { text: answer };
}

function showField(prompter: Prompter, field: Field): void {
  const description = field.description ? sanitizeForTerminal(field.description).trim() : '';
  prompter.write(
    `${sanitizeForTerminal(field.label)} (${field.required ? 'required' : 'optional'})${description ? ` — ${description}` : ''}\n`,
  );
  if (field.kind === 'enum' || field.kind === 'multi') {
    field.choices.forEach((choice, i) => {
      prompter.write(`  ${i + 1}) ${showChoice(field, choice.value)}\n`);
    });
  }
}

/** Ask for one field until the answer is valid; `undefined` value: skipped (optional, no default). */
async function askField(prompter: Prompter, field: Field): Promise<{ value?: ElicitValue } | { stop: 'decline' | 'cancel' }> {
  showField(prompter, field);
  const fallback = field.default !== undefined ? ` [${showValue(field, field.default)}]` : '';
  const prompt = `  ${hintOf(field)}${fallback}: `;
  for (;;) {
    const answer = await ask(prompter, prompt);
    if ('stop' in answer) return answer;
    if (answer.text === '') {
      if (field.default !== undefined) return { value: field.default };
      if (!field.required) return {};
      prompter.write('  ✗ a value is required (or :decline)\n');
      continue;
    }
    const parsed = parseAnswer(field, answer.text);
    if ('value' in parsed) return { value: parsed.value };
    prompter.write(`  ✗ ${parsed.error}\n`);
  }
}

/**
 * Ask the user for what `server` requests, field by field, then confirm. Resolves with
 * `{ action: 'accept', content }` (values typed per the schema; optional fields left empty are
 * absent), `{ action: 'decline' }` (`:decline`, or "no" at `Send?`), or `{ action: 'cancel' }`
 * (`:cancel`, end of input). A request that is not a form (no `requestedSchema`) is declined.
 */
export async function promptElicitation(prompter: Prompter, server: string, params: ElicitFormParams): Promise<ElicitResult> {
  const safeServer = sanitizeForTerminal(server);
  prompter.write(`\n${safeServer} asks: ${sanitizeForTerminal(String(params.message ?? '')).trim()}\n`);
  const schema = (params as { requestedSchema?: unknown }).requestedSchema;
  const properties = schema !== null && typeof schema === 'object' ? (schema as { properties?: unknown }).properties : undefined;
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) {
    prompter.write('  (not a form this terminal can show; declined)\n');
    return { action: 'decline' };
  }
  prompter.write(HELP_LINE);

  const fields = fieldsOf(params.requestedSchema);
  const content: Record<string, ElicitValue> = {};
  for (const field of fields) {
    const result = await askField(prompter, field);
    if ('stop' in result) return { action: result.stop };
    if (result.value !== undefined) content[field.key] = result.value;
  }

  prompter.write(`Summary for ${safeServer}:\n`);
  if (fields.length === 0) prompter.write('  (no fields)\n');
  for (const field of fields) {
    const value = content[field.key];
    prompter.write(`  ${sanitizeForTerminal(field.label)}: ${value === undefined ? '(not given)' : showValue(field, value)}\n`);
  }
  for (;;) {
    const answer = await ask(prompter, 'Send? [y/N]: ');
    if ('stop' in answer) return { action: answer.stop };
    const lower = answer.text.toLowerCase();
    if (lower === 'y' || lower === 'yes') return { action: 'accept', content };
    if (lower === '' || lower === 'n' || lower === 'no') return { action: 'decline' };
    prompter.write('  ✗ answer y or n\n');
  }
}
