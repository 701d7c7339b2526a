/**
 * One-line renderings of what happens during a run, for stderr: tool calls starting and ending,
 * progress, server log messages, notices. Pure functions, string in and string out. Everything a
 * server or the model wrote is sanitised and cut to a length; colour only when asked for (the
 * caller decides, e.g. stderr is a TTY and NO_COLOR is unset).
 */
import { sanitizeForTerminal } from './sanitize.js';

/** How to render. */
export interface RenderOptions {
  /** Wrap parts in ANSI colours. Default false. */
  color?: boolean;
}

/** A tool call as the renderers need it (structurally `ToolCall` from `@mcpkit/agent`). */
export interface RenderToolCall {
  /** The namespaced name (`server__tool`) as the model wrote it. */
  name: string;
  /** The raw JSON text of the arguments (may be malformed). */
  arguments: string;
}

/** The tool a call was routed to (structurally `ToolEntry` from `@mcpkit/agent`). */
export interface RenderToolRef {
  server: string;
  tool: string;
}

/** How a tool call ended (structurally `ToolOutcome` from `@mcpkit/agent`). */
export interface RenderToolOutcome {
  call: RenderToolCall;
  tool?: RenderToolRef;
  status: 'ok' | 'error' | 'denied' | 'timeout' | 'cancelled' | 'unknown_tool' | 'invalid' | (string & {});
  /** What the model is told. */
  text: string;
  isError: boolean;
  durationMs: number;
}

/** A progress notification for a running tool call. */
export interface RenderProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Longest argument preview on a tool-start line. */
const ARGS_PREVIEW_CHARS = 160;
/** Longest message (error line, log data, notice) on one line. */
const LINE_TEXT_CHARS = 300;

const ANSI = {
  dim: '\u001b[2m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  cyan: '\u001b[36m',
  reset: '\u001b[0m',
} as const;

type Colour = Exclude<keyof typeof ANSI, 'reset'>;

function paint(text: string, colour: Colour, options: RenderOptions | undefined): string {
  return options?.color ? `${ANSI[colour]}${text}${ANSI.reset}` : text;
}

/**
 * `text` cut to at most `maxChars` characters, ending in `…` when cut (never splitting a
 * surrogate pair).
 */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = Math.max(0, maxChars - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** Untrusted text as one safe line: sanitised, whitespace runs (newlines too) folded to one space, cut to `maxChars`. */
export function oneLine(text: string, maxChars: number = LINE_TEXT_CHARS): string {
  return truncate(sanitizeForTerminal(text).replace(/\s+/g, ' ').trim(), maxChars);
}

// C1 controls, DEL and bidi overrides survive JSON.stringify; written as \u escapes they stay valid
// JSON and become visible instead of acting on the terminal.
const INVISIBLE_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function stringifyVisible(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) json = String(value);
  return json.replace(INVISIBLE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `value` with objects and arrays below the top level shown as `{…}` / `[…]` and long strings cut. */
function shallow(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > 40 ? `${value.slice(0, 39)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 1) return Array.isArray(value) ? (value.length === 0 ? [] : '[…]') : Object.keys(value).length === 0 ? {} : '{…}';
  if (Array.isArray(value)) return value.map((v) => shallow(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shallow(v, depth + 1)]));
}

/**
 * A JSON value as one safe line of at most `maxChars` characters: the compact JSON when it fits,
 * else with nested objects and arrays collapsed (`{"entities":[…]}`; not with `collapse: false`),
 * else cut with `…`. Control and bidi characters inside strings are shown as `\uXXXX`.
 */
export function formatJsonPreview(value: unknown, maxChars: number, options: { collapse?: boolean } = {}): string {
  const full = stringifyVisible(value);
  if (full.length <= maxChars) return sanitizeForTerminal(full);
  if (options.collapse === false) return sanitizeForTerminal(truncate(full, maxChars));
  // Collapsed values are the strings "[…]" / "{…}"; unquote them so the preview reads as JSON.
  const collapsed = stringifyVisible(shallow(value, 0)).replace(/"(\[…\]|\{…\})"/g, '$1');
  return sanitizeForTerminal(truncate(collapsed, maxChars));
}

/** Raw argument text from the model as a preview: parsed and shown as JSON when it is JSON, else as text. */
function previewArguments(raw: string, maxChars: number): string {
  if (raw.trim() === '') return '{}';
  try {
    return formatJsonPreview(JSON.parse(raw), maxChars);
  } catch {
    return oneLine(raw, maxChars);
  }
}

/** `server › tool`, sanitised (the namespaced name when the call was not routed to a tool). */
function toolLabel(call: { name: string }, tool?: RenderToolRef): string {
  return tool ? `${oneLine(tool.server, 80)} › ${oneLine(tool.tool, 80)}` : oneLine(call.name, 80);
}

/** `→ memory › create_entities {"entities":[…]}`: a tool call is about to run. */
export function formatToolStart(call: RenderToolCall, tool?: RenderToolRef, options?: RenderOptions): string {
  return `${paint('→', 'cyan', options)} ${toolLabel(call, tool)} ${paint(previewArguments(call.arguments, ARGS_PREVIEW_CHARS), 'dim', options)}`;
}

/** `1.2s` / `340ms`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${Math.round((ms % 60_000) / 1000)}s`;
}

const STATUS_LABEL: Record<string, string> = {
  error: 'error',
  denied: 'denied',
  timeout: 'timed out',
  cancelled: 'cancelled',
  unknown_tool: 'unknown tool',
  invalid: 'invalid call',
};

/** The first non-empty line of `text`, without the `Error: ` the model is shown. */
function firstLine(text: string): string {
  const line =
    sanitizeForTerminal(text)
      .split('\n')
      .find((l) => l.trim() !== '') ?? '';
  return line.trim().replace(/^Error:\s*/, '');
}

/**
 * `← memory › create_entities ok (123 chars, 40ms)` for a result, or
 * `✗ memory › create_entities error: <first line>` (also `denied`, `timed out`, `cancelled`,
 * `unknown tool`, `invalid call`).
 */
export function formatToolResult(outcome: RenderToolOutcome, options?: RenderOptions): string {
  const label = toolLabel(outcome.call, outcome.tool);
  if (outcome.status === 'ok' && !outcome.isError) {
    const size = `(${outcome.text.length} chars, ${formatDuration(outcome.durationMs)})`;
    return `${paint('←', 'green', options)} ${label} ${paint('ok', 'green', options)} ${paint(size, 'dim', options)}`;
  }
  const status = STATUS_LABEL[outcome.status] ?? 'error';
  const detail = truncate(firstLine(outcome.text), LINE_TEXT_CHARS);
  return `${paint('✗', 'red', options)} ${label} ${paint(status, 'red', options)}${detail ? `: ${detail}` : ''}`;
}

/** `… memory › long_task 3/10 (30%) copying files` (`3` alone without a total). */
export function formatProgress(server: string, tool: string, progress: RenderProgress, options?: RenderOptions): string {
  const { total } = progress;
  let amount = String(progress.progress);
  if (total !== undefined && Number.isFinite(total) && total > 0) {
    const percent = Math.max(0, Math.min(100, Math.round((progress.progress / total) * 100)));
    amount = `${progress.progress}/${total} (${percent}%)`;
  }
  const message = progress.message ? ` ${oneLine(progress.message)}` : '';
  return paint(`… ${oneLine(server, 80)} › ${oneLine(tool, 80)} ${amount}${message}`, 'dim', options);
}

/** `… git › clone task 3f2a…: working 40% copied`: a tool call running as a task (tasks extension) changed status. */
export function formatTaskStatus(
  server: string,
  tool: string,
  update: { taskId: string; status: string; statusMessage?: string },
  options?: RenderOptions,
): string {
  const id = oneLine(update.taskId, 12);
  const message = update.statusMessage ? ` ${oneLine(update.statusMessage)}` : '';
  const colour: Colour = update.status === 'input_required' ? 'yellow' : update.status === 'failed' ? 'red' : 'dim';
  return paint(`… ${oneLine(server, 80)} › ${oneLine(tool, 80)} task ${id}: ${oneLine(update.status, 20)}${message}`, colour, options);
}

const LEVEL_COLOUR: Record<string, Colour> = {
  debug: 'dim',
  info: 'dim',
  notice: 'cyan',
  warning: 'yellow',
  error: 'red',
  critical: 'red',
  alert: 'red',
  emergency: 'red',
};

/** `[memory] warning: disk almost full`: a server's log message (`data` of any JSON shape). */
export function formatLog(server: string, level: string, data: unknown, options?: RenderOptions): string {
  const text = typeof data === 'string' ? oneLine(data) : formatJsonPreview(data, LINE_TEXT_CHARS);
  const safeLevel = oneLine(level, 20);
  return `[${oneLine(server, 80)}] ${paint(safeLevel, LEVEL_COLOUR[safeLevel] ?? 'dim', options)}: ${text}`;
}

/** `mcp-agent: <text>`: something the user should know (a server failed to start, tools changed). */
export function formatNotice(text: string, options?: RenderOptions): string {
  return `${paint('mcp-agent:', 'yellow', options)} ${oneLine(text, 500)}`;
}
