/**
 * The command line of `mcp-agent`, checked and turned into one plain object. Every problem is a
 * `UsageError` with one line that names the flag (exit code 2). The API key is never a flag (it
 * would end up in shell history and `ps`): `--api-key-env` names the variable that holds it.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CONTEXT_WINDOW_TOKENS, defaultConfigDir, PROTOCOL_MODES, type ProtocolMode } from '@mcpkit/agent';

/** A problem with the command line; `message` is one line naming the flag. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** How tools are offered to the model: native function calling, or described in the prompt. */
type CliToolMode = 'native' | 'text';

/** The checked command line. */
export interface CliOptions {
  /** `--config`: the mcpServers JSON file (as given). Absent: no servers, just a chat. */
  config?: string;
  /**
   * `--config-dir`, else `MCP_AGENT_CONFIG_DIR`, `$XDG_CONFIG_HOME/mcp-agent` or `~/.config/mcp-agent`: where the
   * OAuth logins are kept (`<dir>/auth`), the same directory `mcp-agent login` writes. Absolute.
   */
  configDir: string;
  /** `--prompt`: answer this once and exit. `-` means read the prompt from stdin (the caller does). */
  prompt?: string;
  /** `--model` or `OPENAI_MODEL`. Empty only when `help` or `version` is set. */
  model: string;
  /** `--base-url` or `OPENAI_BASE_URL`, without a trailing slash. */
  baseUrl: string;
  /** The name of the variable holding the API key (`--api-key-env`, default `OPENAI_API_KEY`). */
  apiKeyEnv: string;
  /** The key from that variable; undefined when it is unset or empty (fine for local servers). */
  apiKey?: string;
  /** Tool rounds before the model must answer (1..100). */
  maxSteps: number;
  /** Per-call tool timeout in milliseconds. */
  toolTimeoutMs: number;
  toolMode: CliToolMode;
  /** `--protocol`: the protocol mode of servers whose config entry has no `protocol` (default `legacy`). */
  protocol: ProtocolMode;
  /** False with `--no-stream`. */
  stream: boolean;
  /** `--yes`: allow every tool call the config does not deny. */
  yes: boolean;
  /** `--ask-stdin`: ask approvals and forms on stdin even when it is not a terminal (for a driving program). */
  askStdin: boolean;
  /**
   * False with `--no-auto-approve-read-only`: tools that say `readOnlyHint` are asked like any other, on
   * every server (a server's `"autoApproveReadOnly": false` does it for that server). Default true.
   */
  autoApproveReadOnly: boolean;
  /** `--json`: print the transcript as JSON on stdout. */
  json: boolean;
  /** `--root` directories, absolute, without duplicates. */
  roots: string[];
  /** `--system`: the system prompt. */
  system?: string;
  /** Cap on one tool result sent to the model (characters). */
  maxResultChars: number;
  /** `--context-window`: the model's context window in tokens (absent: the agent's default, 32,768). */
  contextWindowTokens?: number;
  /**
   * `--defer-threshold`: defer the tools behind `tool_search` past this many (estimated) tokens of
   * schemas; `off` never defers. Absent: 5% of the context window (the 2026 client guidance: 1-5%).
   */
  deferThresholdTokens?: number | 'off';
  /** `--quiet`: no tool activity on stderr. */
  quiet: boolean;
  help: boolean;
  version: boolean;
}

/** Defaults of the flags that have one. */
export const CLI_DEFAULTS = {
  baseUrl: 'https://api.openai.com/v1',
  apiKeyEnv: 'OPENAI_API_KEY',
  maxSteps: 5,
  toolTimeoutMs: 60_000,
  toolMode: 'native',
  protocol: 'legacy',
  maxResultChars: 20_000,
} as const satisfies Partial<CliOptions>;

/** Bounds of the numeric flags. */
export const CLI_LIMITS = {
  maxSteps: { min: 1, max: 100 },
  maxResultChars: { min: 100, max: 10_000_000 },
  contextWindowTokens: { min: 1024, max: 100_000_000 },
  deferThresholdTokens: { min: 0, max: 100_000_000 },
  /** Tool timeout: up to 24 hours (timers cannot go much further). */
  toolTimeoutMs: { min: 1, max: 24 * 60 * 60 * 1000 },
} as const;

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  'config-dir': { type: 'string' },
  prompt: { type: 'string', short: 'p' },
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  'max-steps': { type: 'string' },
  'tool-timeout': { type: 'string' },
  'tool-mode': { type: 'string' },
  protocol: { type: 'string' },
  'no-stream': { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  'ask-stdin': { type: 'boolean' },
  'no-auto-approve-read-only': { type: 'boolean' },
  json: { type: 'boolean' },
  root: { type: 'string', multiple: true },
  system: { type: 'string' },
  'max-result-chars': { type: 'string' },
  'context-window': { type: 'string' },
  'defer-threshold': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

const SHORT_TO_LONG: Record<string, string> = Object.fromEntries(
  Object.entries(OPTIONS).flatMap(([long, spec]) => ('short' in spec ? [[`-${spec.short}`, `--${long}`]] : [])),
);

/** A value quoted for an error message: cut to 40 characters, JSON-quoted (so control characters are escaped). */
function quote(value: string): string {
  const cut = value.length > 40 ? `${value.slice(0, 39)}…` : value;
  return JSON.stringify(cut);
}

/** Turn node:util parseArgs errors into one line naming the flag. */
function usageFromParseError(error: unknown): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    // The option as written, without any `=value` (which could be a secret).
    const name = (/Unknown option '([^']*)'/.exec(message)?.[1] ?? '').split('=')[0] ?? '';
    if (name === '--api-key' || name === '--key' || name === '--token') {
      return new UsageError(
        `unknown option ${name}: the API key is not taken on the command line; put it in OPENAI_API_KEY or name its variable with --api-key-env`,
      );
    }
    return new UsageError(`unknown option ${name} (see mcp-agent --help)`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const written = /Option '(?:(-\w), )?(--[\w-]+)/.exec(message);
    const short = /Option '(-\w)'/.exec(message)?.[1];
    const flag = written?.[2] ?? (short ? (SHORT_TO_LONG[short] ?? short) : 'option');
    if (message.includes('does not take an argument')) return new UsageError(`${flag}: takes no value`);
    if (message.includes('ambiguous')) {
      return new UsageError(`${flag}: expected a value; a value starting with "-" must be written as ${flag}=-…`);
    }
    return new UsageError(`${flag}: expected a value`);
  }
  return new UsageError(message.split('\n')[0] ?? message);
}

function parseRaw(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw usageFromParseError(error);
  }
}

function parseInteger(flag: string, raw: string, min: number, max: number): number {
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag}: expected an integer from ${min} to ${max}, got ${quote(raw)}`);
  }
  return value;
}

/**
 * A duration in milliseconds: `500ms`, `30s`, `2m`, or a plain number of seconds (decimals allowed).
 * Throws `UsageError` naming `flag`.
 */
export function parseDuration(flag: string, raw: string): number {
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m)?$/i.exec(raw.trim());
  if (!match) throw new UsageError(`${flag}: expected a duration such as 500ms, 30s or 2m, got ${quote(raw)}`);
  const unit = (match[2] ?? 's').toLowerCase();
  const ms = Math.round(Number(match[1]) * (unit === 'ms' ? 1 : unit === 's' ? 1000 : 60_000));
  const { min, max } = CLI_LIMITS.toolTimeoutMs;
  if (ms < min) throw new UsageError(`${flag}: must be more than 0, got ${quote(raw)}`);
  if (ms > max) throw new UsageError(`${flag}: must be at most 24 hours, got ${quote(raw)}`);
  return ms;
}

/** `--defer-threshold`: `off`, a number of tokens, or a percentage of the context window (`15%`). */
function parseDeferThreshold(raw: string, contextWindowTokens: number): number | 'off' {
  const text = raw.trim();
  if (text === 'off') return 'off';
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (percent) {
    const share = Number(percent[1]);
    if (share <= 0 || share > 100)
      throw new UsageError(`--defer-threshold: a percentage must be more than 0 and at most 100, got ${quote(raw)}`);
    return Math.round((contextWindowTokens * share) / 100);
  }
  if (!/^\d+$/.test(text))
    throw new UsageError(`--defer-threshold: expected a number of tokens, a percentage (15%) or off, got ${quote(raw)}`);
  const { min, max } = CLI_LIMITS.deferThresholdTokens;
  return parseInteger('--defer-threshold', text, min, max);
}

function parseBaseUrl(source: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`${source}: expected an http(s) URL such as http://localhost:11434/v1, got ${quote(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source}: expected an http(s) URL such as http://localhost:11434/v1, got ${quote(raw)}`);
  }
  return raw.trim().replace(/\/+$/, '');
}

function parseRoot(raw: string, cwd: string): string {
  if (raw.trim() === '') throw new UsageError('--root: expected a directory, got ""');
  const path = resolve(cwd, raw);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`--root: no such directory: ${path}`);
  }
  if (!isDirectory) throw new UsageError(`--root: not a directory: ${path}`);
  return path;
}

/** An environment value, or undefined when unset or empty. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Parse and check `argv` (without `node` and the script). Values missing from the command line
 * come from `env` (`OPENAI_MODEL`, `OPENAI_BASE_URL`, the `--api-key-env` variable) and then the
 * defaults. Relative `--root` paths are resolved against `cwd`. With `--help` or `--version` nothing
 * else is checked (only unknown flags are still errors). Throws `UsageError`.
 */
export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv, cwd: string = process.cwd()): CliOptions {
  const { values, positionals } = parseRaw(argv);

  const options: CliOptions = {
    configDir: '',
    model: '',
    baseUrl: CLI_DEFAULTS.baseUrl,
    apiKeyEnv: CLI_DEFAULTS.apiKeyEnv,
    maxSteps: CLI_DEFAULTS.maxSteps,
    toolTimeoutMs: CLI_DEFAULTS.toolTimeoutMs,
    toolMode: CLI_DEFAULTS.toolMode,
    protocol: CLI_DEFAULTS.protocol,
    stream: true,
    yes: false,
    askStdin: false,
    autoApproveReadOnly: true,
    json: false,
    roots: [],
    maxResultChars: CLI_DEFAULTS.maxResultChars,
    quiet: false,
    help: values.help === true,
    version: values.version === true,
  };
  if (options.help || options.version) return options;

  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument ${quote(positionals[0] ?? '')}: pass the prompt with -p "…" (or -p - to read it from stdin)`);
  }

  if (values.config !== undefined) {
    if (values.config.trim() === '') throw new UsageError('--config: expected a file name, got ""');
    options.config = values.config;
  }
  if (values['config-dir'] !== undefined) {
    if (values['config-dir'].trim() === '') throw new UsageError('--config-dir: expected a directory, got ""');
    options.configDir = resolve(cwd, values['config-dir']);
  } else {
    options.configDir = defaultConfigDir(env);
  }
  if (values.prompt !== undefined) {
    if (values.prompt.trim() === '') throw new UsageError('--prompt: the prompt is empty');
    options.prompt = values.prompt;
  }

  const model = values.model ?? envValue(env, 'OPENAI_MODEL');
  if (model === undefined || model.trim() === '') {
    throw new UsageError('--model: no model given; pass --model <name> or set OPENAI_MODEL');
  }
  options.model = model.trim();

  if (values['base-url'] !== undefined) options.baseUrl = parseBaseUrl('--base-url', values['base-url']);
  else {
    const fromEnv = envValue(env, 'OPENAI_BASE_URL');
    if (fromEnv !== undefined) options.baseUrl = parseBaseUrl('OPENAI_BASE_URL', fromEnv);
  }

  if (values['api-key-env'] !== undefined) {
    const name = values['api-key-env'];
    // Never echo the value: a key pasted here by mistake must not land in logs.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new UsageError('--api-key-env: expected the name of an environment variable (such as OPENAI_API_KEY), not the key itself');
    }
    options.apiKeyEnv = name;
  }
  options.apiKey = envValue(env, options.apiKeyEnv);

  if (values['max-steps'] !== undefined) {
    options.maxSteps = parseInteger('--max-steps', values['max-steps'], CLI_LIMITS.maxSteps.min, CLI_LIMITS.maxSteps.max);
  }
  if (values['tool-timeout'] !== undefined) options.toolTimeoutMs = parseDuration('--tool-timeout', values['tool-timeout']);
  if (values['tool-mode'] !== undefined) {
    const mode = values['tool-mode'];
    if (mode !== 'native' && mode !== 'text') throw new UsageError(`--tool-mode: expected native or text, got ${quote(mode)}`);
    options.toolMode = mode;
  }
  if (values.protocol !== undefined) {
    const mode = values.protocol;
    if (!PROTOCOL_MODES.includes(mode as ProtocolMode)) {
      throw new UsageError(`--protocol: expected legacy, auto or 2026-07-28, got ${quote(mode)}`);
    }
    options.protocol = mode as ProtocolMode;
  }
  if (values['max-result-chars'] !== undefined) {
    const { min, max } = CLI_LIMITS.maxResultChars;
    options.maxResultChars = parseInteger('--max-result-chars', values['max-result-chars'], min, max);
  }
  if (values.system !== undefined) options.system = values.system;
  if (values['context-window'] !== undefined) {
    const { min, max } = CLI_LIMITS.contextWindowTokens;
    options.contextWindowTokens = parseInteger('--context-window', values['context-window'], min, max);
  }
  if (values['defer-threshold'] !== undefined) {
    options.deferThresholdTokens = parseDeferThreshold(
      values['defer-threshold'],
      options.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS,
    );
  }

  options.stream = values['no-stream'] !== true;
  options.yes = values.yes === true;
  options.askStdin = values['ask-stdin'] === true;
  options.autoApproveReadOnly = values['no-auto-approve-read-only'] !== true;
  options.json = values.json === true;
  options.quiet = values.quiet === true;
  if (options.json && options.prompt === undefined) {
    throw new UsageError('--json: only with --prompt (it prints the transcript of one run)');
  }

  for (const raw of values.root ?? []) {
    const root = parseRoot(raw, cwd);
    if (!options.roots.includes(root)) options.roots.push(root);
  }
  return options;
}
