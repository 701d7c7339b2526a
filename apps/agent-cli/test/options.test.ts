import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { helpText } from '../src/help.js';
import { type CliOptions, parseCliOptions, parseDuration, UsageError } from '../src/options.js';

const env = { OPENAI_MODEL: 'gpt-test' };
const dir = mkdtempSync(join(tmpdir(), 'agent-cli-options-'));
mkdirSync(join(dir, 'a'));
writeFileSync(join(dir, 'file.txt'), 'x');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function parse(argv: string[], environment: NodeJS.ProcessEnv = env): CliOptions {
  return parseCliOptions(argv, environment, dir);
}

function usage(argv: string[], environment: NodeJS.ProcessEnv = env): string {
  try {
    parse(argv, environment);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`expected a UsageError for ${argv.join(' ')}`);
}

describe('parseCliOptions', () => {
  it('fills in the defaults', () => {
    expect(parse([])).toEqual({
      configDir: join(homedir(), '.config', 'mcp-agent'),
      model: 'gpt-test',
      baseUrl: 'https://api.openai.com/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
      apiKey: undefined,
      maxSteps: 5,
      toolTimeoutMs: 60_000,
      toolMode: 'native',
      protocol: 'legacy',
      stream: true,
      yes: false,
      askStdin: false,
      autoApproveReadOnly: true,
      json: false,
      roots: [],
      maxResultChars: 20_000,
      quiet: false,
      help: false,
      version: false,
    });
  });

  it('--config-dir (relative to the working directory) wins over MCP_AGENT_CONFIG_DIR and XDG_CONFIG_HOME', () => {
    const both = { ...env, MCP_AGENT_CONFIG_DIR: '/from/env', XDG_CONFIG_HOME: '/xdg' };
    expect(parse(['--config-dir', 'a'], both).configDir).toBe(join(dir, 'a'));
    expect(parse([], both).configDir).toBe('/from/env');
    expect(parse([], { ...env, XDG_CONFIG_HOME: '/xdg' }).configDir).toBe('/xdg/mcp-agent');
    expect(usage(['--config-dir', ' '])).toBe('--config-dir: expected a directory, got ""');
    expect(helpText()).toContain('--config-dir <dir>');
  });

  it('--no-auto-approve-read-only turns off running read-only tools without asking', () => {
    expect(parse(['--no-auto-approve-read-only']).autoApproveReadOnly).toBe(false);
    expect(helpText()).toContain('--no-auto-approve-read-only');
  });

  it('--protocol sets the default protocol mode of servers; other values are refused in one line', () => {
    expect(parse(['--protocol', 'auto']).protocol).toBe('auto');
    expect(parse(['--protocol', '2026-07-28']).protocol).toBe('2026-07-28');
    expect(usage(['--protocol', 'modern'])).toBe('--protocol: expected legacy, auto or 2026-07-28, got "modern"');
    expect(helpText()).toContain('--protocol <mode>');
  });

  it('reads every flag', () => {
    const options = parse([
      '-c',
      'servers.json',
      '-p',
      'hello',
      '-m',
      'llama3',
      '--base-url',
      'http://localhost:11434/v1/',
      '--api-key-env',
      'MY_KEY',
      '--max-steps',
      '12',
      '--tool-timeout',
      '2m',
      '--tool-mode',
      'text',
      '--no-stream',
      '-y',
      '--json',
      '--root',
      'a',
      '--root',
      dir,
      '--system',
      'be brief',
      '--max-result-chars',
      '5000',
      '-q',
    ]);
    expect(options).toMatchObject({
      config: 'servers.json',
      prompt: 'hello',
      model: 'llama3',
      baseUrl: 'http://localhost:11434/v1',
      apiKeyEnv: 'MY_KEY',
      maxSteps: 12,
      toolTimeoutMs: 120_000,
      toolMode: 'text',
      stream: false,
      yes: true,
      json: true,
      roots: [join(dir, 'a'), dir],
      system: 'be brief',
      maxResultChars: 5000,
      quiet: true,
    });
  });

  it('falls back to the environment for the model, base URL and key', () => {
    const options = parse([], { OPENAI_MODEL: 'from-env', OPENAI_BASE_URL: 'http://localhost:1234/v1', OPENAI_API_KEY: 'sk-env' });
    expect(options.model).toBe('from-env');
    expect(options.baseUrl).toBe('http://localhost:1234/v1');
    expect(options.apiKey).toBe('sk-env');
  });

  it('prefers flags over the environment', () => {
    const options = parse(['-m', 'flag-model', '--base-url', 'https://example.com/v1'], {
      OPENAI_MODEL: 'env-model',
      OPENAI_BASE_URL: 'http://localhost:1/v1',
    });
    expect(options.model).toBe('flag-model');
    expect(options.baseUrl).toBe('https://example.com/v1');
  });

  it('reads the key from the variable --api-key-env names, and leaves it undefined when unset or empty', () => {
    expect(parse(['--api-key-env', 'LOCAL_KEY'], { ...env, LOCAL_KEY: 'k1', OPENAI_API_KEY: 'other' }).apiKey).toBe('k1');
    expect(parse(['--api-key-env', 'LOCAL_KEY'], { ...env, OPENAI_API_KEY: 'other' }).apiKey).toBeUndefined();
    expect(parse([], { ...env, OPENAI_API_KEY: '' }).apiKey).toBeUndefined();
  });

  it('accepts -p - (stdin) and --prompt=-text', () => {
    expect(parse(['-p', '-']).prompt).toBe('-');
    expect(parse(['--prompt=-x is a flag?']).prompt).toBe('-x is a flag?');
  });

  it('lets --help and --version through without a model', () => {
    expect(parseCliOptions(['--help'], {}).help).toBe(true);
    expect(parseCliOptions(['-h', '--max-steps', 'x'], {}).help).toBe(true);
    expect(parseCliOptions(['-V'], {}).version).toBe(true);
  });

  it('drops duplicate roots', () => {
    expect(parse(['--root', 'a', '--root', join(dir, 'a')]).roots).toEqual([join(dir, 'a')]);
  });

  it('parses durations', () => {
    expect(parseDuration('--tool-timeout', '500ms')).toBe(500);
    expect(parseDuration('--tool-timeout', '30s')).toBe(30_000);
    expect(parseDuration('--tool-timeout', '2m')).toBe(120_000);
    expect(parseDuration('--tool-timeout', '45')).toBe(45_000);
    expect(parseDuration('--tool-timeout', '1.5s')).toBe(1500);
    expect(parse(['--tool-timeout', '90']).toolTimeoutMs).toBe(90_000);
  });

  it('says what is wrong, naming the flag', () => {
    expect(usage([], {})).toBe('--model: no model given; pass --model <name> or set OPENAI_MODEL');
    expect(usage(['--max-steps', 'x'])).toBe('--max-steps: expected an integer from 1 to 100, got "x"');
    expect(usage(['--max-steps', '0'])).toBe('--max-steps: expected an integer from 1 to 100, got "0"');
    expect(usage(['--max-steps', '101'])).toBe('--max-steps: expected an integer from 1 to 100, got "101"');
    expect(usage(['--max-steps', '2.5'])).toBe('--max-steps: expected an integer from 1 to 100, got "2.5"');
    expect(usage(['--tool-timeout', 'soon'])).toBe('--tool-timeout: expected a duration such as 500ms, 30s or 2m, got "soon"');
    expect(usage(['--tool-timeout', '0s'])).toBe('--tool-timeout: must be more than 0, got "0s"');
    expect(usage(['--tool-timeout', '2000m'])).toBe('--tool-timeout: must be at most 24 hours, got "2000m"');
    expect(usage(['--tool-mode', 'xml'])).toBe('--tool-mode: expected native or text, got "xml"');
    expect(usage(['--max-result-chars', 'lots'])).toBe('--max-result-chars: expected an integer from 100 to 10000000, got "lots"');
    expect(usage(['--base-url', 'localhost:11434'])).toMatch(/^--base-url: expected an http\(s\) URL/);
    expect(usage(['--base-url', 'not a url'])).toMatch(/^--base-url: expected an http\(s\) URL/);
    expect(usage([], { ...env, OPENAI_BASE_URL: 'ftp://x' })).toMatch(/^OPENAI_BASE_URL: expected an http\(s\) URL/);
    expect(usage(['--root', 'missing'])).toBe(`--root: no such directory: ${join(dir, 'missing')}`);
    expect(usage(['--root', 'file.txt'])).toBe(`--root: not a directory: ${join(dir, 'file.txt')}`);
    expect(usage(['--json'])).toBe('--json: only with --prompt (it prints the transcript of one run)');
    expect(usage(['-p', '  '])).toBe('--prompt: the prompt is empty');
    expect(usage(['-c', ''])).toBe('--config: expected a file name, got ""');
  });

  it('reports unknown flags, missing values and positionals', () => {
    expect(usage(['--foo'])).toBe('unknown option --foo (see mcp-agent --help)');
    expect(usage(['-x'])).toBe('unknown option -x (see mcp-agent --help)');
    expect(usage(['--stream'])).toBe('unknown option --stream (see mcp-agent --help)');
    expect(usage(['--model'])).toBe('--model: expected a value');
    expect(usage(['-m'])).toBe('--model: expected a value');
    expect(usage(['-p', '-x'])).toBe('--prompt: expected a value; a value starting with "-" must be written as --prompt=-…');
    expect(usage(['--yes=1'])).toBe('--yes: takes no value');
    expect(usage(['what is 2+2'])).toBe('unexpected argument "what is 2+2": pass the prompt with -p "…" (or -p - to read it from stdin)');
  });

  it('never echoes an API key given on the command line', () => {
    const secret = 'sk-secret-1234567890';
    const keyFlag = usage([`--api-key=${secret}`]);
    expect(keyFlag).toMatch(/^unknown option --api-key: the API key is not taken on the command line/);
    expect(keyFlag).not.toContain(secret);
    const keyAsName = usage(['--api-key-env', secret]);
    expect(keyAsName).toMatch(/^--api-key-env: expected the name of an environment variable/);
    expect(keyAsName).not.toContain(secret);
    expect(usage([`--bogus=${secret}`])).not.toContain(secret);
  });
});

describe('helpText', () => {
  const help = helpText();

  it('lists every flag', () => {
    for (const flag of [
      '--config',
      '--prompt',
      '--model',
      '--base-url',
      '--api-key-env',
      '--max-steps',
      '--tool-timeout',
      '--tool-mode',
      '--no-stream',
      '--yes',
      '--json',
      '--root',
      '--system',
      '--max-result-chars',
      '--quiet',
      '--help',
      '--version',
    ]) {
      expect(help).toContain(flag);
    }
  });

  it('gives defaults, environment variables, the config format, examples and exit codes', () => {
    expect(help).toContain('OPENAI_MODEL');
    expect(help).toContain('OPENAI_BASE_URL');
    expect(help).toContain('default https://api.openai.com/v1');
    expect(help).toContain('default OPENAI_API_KEY');
    expect(help).toContain('(default 5)');
    expect(help).toContain('(default 60s)');
    expect(help).toContain('(default 20000)');
    expect(help).toContain('"mcpServers"');
    expect(help).toContain('"approval"');
    expect(help).toContain('--base-url http://localhost:11434/v1');
    expect(help).toContain('LM Studio');
    expect(help).toMatch(/130\s+interrupted/);
    expect(help).toMatch(/2\s+usage or configuration error/);
  });

  it('has a valid JSON config example and fits in 100 columns', () => {
    const start = help.indexOf('  {\n');
    const end = help.indexOf('\n  }\n', start) + 4;
    expect(JSON.parse(help.slice(start, end))).toHaveProperty('mcpServers.memory.approval.tools.delete_entities', 'deny');
    for (const line of help.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });
});

describe('--ask-stdin', () => {
  it('is off by default and on with the flag', () => {
    expect(parseCliOptions(['-m', 'm'], {}).askStdin).toBe(false);
    expect(parseCliOptions(['-m', 'm', '--ask-stdin'], {}).askStdin).toBe(true);
  });
});

describe('--context-window and --defer-threshold', () => {
  it('are absent by default (the agent defaults: 5% of 32,768 tokens)', () => {
    const options = parseCliOptions(['-m', 'm'], {});
    expect(options.contextWindowTokens).toBeUndefined();
    expect(options.deferThresholdTokens).toBeUndefined();
  });

  it('take tokens, a share of the window, or off; bad values are one line naming the flag', () => {
    expect(parseCliOptions(['-m', 'm', '--context-window', '128000'], {}).contextWindowTokens).toBe(128_000);
    expect(parseCliOptions(['-m', 'm', '--defer-threshold', '4000'], {}).deferThresholdTokens).toBe(4000);
    expect(parseCliOptions(['-m', 'm', '--defer-threshold', 'off'], {}).deferThresholdTokens).toBe('off');
    expect(parseCliOptions(['-m', 'm', '--defer-threshold', '15%'], {}).deferThresholdTokens).toBe(4915);
    expect(parseCliOptions(['-m', 'm', '--context-window', '200000', '--defer-threshold', '5%'], {}).deferThresholdTokens).toBe(10_000);
    expect(() => parseCliOptions(['-m', 'm', '--defer-threshold', 'lots'], {})).toThrow(
      '--defer-threshold: expected a number of tokens, a percentage (15%) or off, got "lots"',
    );
    expect(() => parseCliOptions(['-m', 'm', '--defer-threshold', '0%'], {})).toThrow(
      '--defer-threshold: a percentage must be more than 0',
    );
    expect(() => parseCliOptions(['-m', 'm', '--context-window', '12'], {})).toThrow('--context-window: expected an integer from 1024');
    expect(helpText()).toContain('--defer-threshold <n>');
    expect(helpText()).toContain('"defer": false');
  });
});
