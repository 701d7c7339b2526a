import { describe, expect, it } from 'vitest';
import { configSource, configWarnings, defineOptions, formatHelp, parse, parseConfig } from '../src/config.js';
import { ConfigError } from '../src/errors.js';
import { applyTransportAlias, mergeOptions, runnerOptions } from '../src/runner/cli.js';

const options = defineOptions({
  'max-items': { type: 'string', env: 'MAX_ITEMS', description: 'Items', default: 10, parse: parse.int({ min: 1, max: 100 }) },
  verbose: { type: 'boolean', env: 'VERBOSE', description: 'Talk more' },
  'allow-host': { type: 'string', multiple: true, env: 'ALLOW_HOSTS', description: 'Hosts' },
  name: { type: 'string', description: 'A name' },
});

describe('parseConfig', () => {
  it('applies defaults', () => {
    expect(parseConfig(options, [], {})).toEqual({ maxItems: 10, verbose: false, allowHost: [], name: undefined });
  });

  it('reads flags, then env, then defaults', () => {
    expect(parseConfig(options, ['--max-items', '5'], { MAX_ITEMS: '7' }).maxItems).toBe(5);
    expect(parseConfig(options, [], { MAX_ITEMS: '7' }).maxItems).toBe(7);
    expect(parseConfig(options, ['--max-items=3'], {}).maxItems).toBe(3);
  });

  it('tells where each value came from, without adding keys', () => {
    const config = parseConfig(options, ['--verbose'], { MAX_ITEMS: '7' });
    expect(configSource(config, 'verbose')).toEqual({ source: 'flag', name: '--verbose' });
    expect(configSource(config, 'maxItems')).toEqual({ source: 'env', name: 'MAX_ITEMS' });
    expect(configSource(config, 'name')).toEqual({ source: 'default' });
    expect(Object.keys(config)).toEqual(['maxItems', 'verbose', 'allowHost', 'name']);
  });

  it('parses booleans from env words', () => {
    expect(parseConfig(options, [], { VERBOSE: 'TRUE' }).verbose).toBe(true);
    expect(parseConfig(options, [], { VERBOSE: 'off' }).verbose).toBe(false);
    expect(() => parseConfig(options, [], { VERBOSE: 'maybe' })).toThrow(/VERBOSE must be true or false/);
  });

  it('collects repeatable flags and comma-separated env', () => {
    expect(parseConfig(options, ['--allow-host', 'a', '--allow-host', 'b'], {}).allowHost).toEqual(['a', 'b']);
    expect(parseConfig(options, [], { ALLOW_HOSTS: 'a, b,' }).allowHost).toEqual(['a', 'b']);
  });

  it('names the flag or variable at fault', () => {
    expect(() => parseConfig(options, ['--max-items', 'many'], {})).toThrow(ConfigError);
    expect(() => parseConfig(options, ['--max-items', 'many'], {})).toThrow('invalid value for --max-items: "many" is not a whole number');
    expect(() => parseConfig(options, [], { MAX_ITEMS: '1000' })).toThrow('invalid value for MAX_ITEMS: 1000 is out of range (1..100)');
    expect(() => parseConfig(options, ['--nope'], {})).toThrow(/Unknown option '--nope'/);
    expect(() => parseConfig(options, ['--name'], {})).toThrow(/--name/);
    expect(() => parseConfig(options, ['stray'], {})).toThrow(/stray/);
  });

  it('parses durations and sizes', () => {
    expect(parse.duration('30s')).toBe(30_000);
    expect(parse.duration('500ms')).toBe(500);
    expect(parse.duration('2')).toBe(2000);
    expect(parse.bytes('4mb')).toBe(4 * 1024 * 1024);
    expect(parse.bytes('512k')).toBe(512 * 1024);
    expect(() => parse.duration('soon')).toThrow(/not a duration/);
    expect(() => parse.bytes('lots')).toThrow(/not a size/);
  });

  it('parses the runner options', () => {
    const config = parseConfig(runnerOptions, ['--transport', 'http', '--port', '0', '--session-timeout', '5m'], {
      MCP_AUTH_TOKEN: 's3cret',
    });
    expect(config).toMatchObject({
      transport: 'http',
      port: 0,
      host: '127.0.0.1',
      authToken: 's3cret',
      sessionTimeout: 300_000,
      requestTimeout: 60_000,
      logLevel: 'info',
    });
    expect(() => parseConfig(runnerOptions, ['--transport', 'ws'], {})).toThrow(
      'invalid value for --transport: "ws" is not one of stdio, http, sse',
    );
    expect(parseConfig(runnerOptions, [], { MCP_REQUEST_TIMEOUT: '5s' }).requestTimeout).toBe(5000);
  });

  it('reads levels and transports in any case, with the usual level names', () => {
    for (const [raw, level] of [
      ['WARN', 'warn'],
      ['Info', 'info'],
      ['trace', 'debug'],
      ['WARNING', 'warn'],
      ['fatal', 'error'],
      ['off', 'silent'],
    ] as const) {
      expect(parseConfig(runnerOptions, [], { LOG_LEVEL: raw }).logLevel).toBe(level);
      expect(parseConfig(runnerOptions, ['--log-level', raw], {}).logLevel).toBe(level);
    }
    expect(parseConfig(runnerOptions, [], { MCP_TRANSPORT: 'HTTP' }).transport).toBe('http');
  });

  it('uses the default, with a warning, for a bad LOG_LEVEL or PORT; a bad flag or MCP_* variable still fails', () => {
    const config = parseConfig(runnerOptions, [], { LOG_LEVEL: 'loud', PORT: '' });
    expect(config).toMatchObject({ logLevel: 'info', port: 3000 });
    expect(configWarnings(config)).toEqual([
      { key: 'port', name: 'PORT', message: 'ignoring PORT="": "" is not a whole number; using the default 3000' },
      {
        key: 'logLevel',
        name: 'LOG_LEVEL',
        message: 'ignoring LOG_LEVEL="loud": "loud" is not one of debug, info, warn, error, silent; using the default info',
      },
    ]);
    expect(configWarnings(parseConfig(runnerOptions, [], { LOG_LEVEL: 'warn' }))).toEqual([]);
    expect(() => parseConfig(runnerOptions, ['--log-level', 'loud'], {})).toThrow('invalid value for --log-level');
    expect(() => parseConfig(runnerOptions, ['--port', ''], {})).toThrow('invalid value for --port');
    expect(() => parseConfig(runnerOptions, [], { MCP_TRANSPORT: 'ws' })).toThrow('invalid value for MCP_TRANSPORT');
  });

  it('takes allowed hosts as name, name:port or an IPv6 address, and names a bad one', () => {
    const hosts = ['proxy.example', 'proxy.example:8443', '[::1]:3000', '::1'];
    expect(
      parseConfig(
        runnerOptions,
        hosts.flatMap((h) => ['--allowed-host', h]),
        {},
      ).allowedHost,
    ).toEqual(hosts);
    expect(() => parseConfig(runnerOptions, ['--allowed-host', 'proxy.example:https'], {})).toThrow(
      'invalid value for --allowed-host: "proxy.example:https" has an invalid port (1..65535)',
    );
    expect(() => parseConfig(runnerOptions, [], { MCP_ALLOWED_HOSTS: 'ok.example, bad host' })).toThrow(
      'invalid value for MCP_ALLOWED_HOSTS: "bad host" is not a host name or name:port',
    );
  });

  it('accepts an option under its aliases, naming the flag used', () => {
    const aliased = defineOptions({
      'allow-private-network': { type: 'boolean', env: 'ALLOW_PRIVATE', description: 'Open', aliases: ['allow-private-ips'] },
      'max-items': { type: 'string', description: 'Items', aliases: ['limit'], parse: parse.int({ min: 1, max: 9 }) },
      'allow-host': { type: 'string', multiple: true, description: 'Hosts', aliases: ['host'] },
    });
    const config = parseConfig(aliased, ['--allow-private-ips', '--limit', '3', '--allow-host', 'a', '--host', 'b'], {});
    expect(config).toEqual({ allowPrivateNetwork: true, maxItems: 3, allowHost: ['a', 'b'] });
    expect(Object.keys(config)).toEqual(['allowPrivateNetwork', 'maxItems', 'allowHost']);
    expect(configSource(config, 'allowPrivateNetwork')).toEqual({ source: 'flag', name: '--allow-private-ips' });
    expect(parseConfig(aliased, [], { ALLOW_PRIVATE: '1' }).allowPrivateNetwork).toBe(true);
    expect(() => parseConfig(aliased, ['--limit', '10'], {})).toThrow('invalid value for --limit: 10 is out of range (1..9)');
    expect(formatHelp('x', 'X', aliased)).toContain('Open (also --allow-private-ips; env ALLOW_PRIVATE)');
    const clash = defineOptions({ a: { type: 'boolean', description: 'A' }, b: { type: 'boolean', description: 'B', aliases: ['a'] } });
    expect(() => parseConfig(clash, [], {})).toThrow('option alias --a of --b is already an option');
  });

  it('renders help with env names and defaults', () => {
    const help = formatHelp('mcp-server-x', 'Does x.', options);
    expect(help).toContain('Usage: mcp-server-x [options]');
    expect(help).toMatch(/--max-items <value>\s+Items \(env MAX_ITEMS; default 10\)/);
    expect(help).toMatch(/--allow-host <value>\s+Hosts \(repeatable; env ALLOW_HOSTS\)/);
  });
});

describe('applyTransportAlias (a reference bin’s positional transport)', () => {
  const aliases = { stdio: 'stdio', sse: 'sse', streamableHttp: 'http' } as const;

  it('turns a leading alias into --transport and keeps the rest', () => {
    expect(applyTransportAlias(['streamableHttp', '--port', '0'], aliases)).toEqual(['--transport', 'http', '--port', '0']);
    expect(parseConfig(runnerOptions, [...applyTransportAlias(['sse'], aliases)], {}).transport).toBe('sse');
  });

  it('leaves flags alone and rejects an unknown word by name', () => {
    expect(applyTransportAlias(['--transport', 'http'], aliases)).toEqual(['--transport', 'http']);
    expect(applyTransportAlias([], aliases)).toEqual([]);
    expect(() => applyTransportAlias(['websocket'], aliases)).toThrow(
      new ConfigError('unknown transport "websocket" (expected stdio, sse, streamableHttp, or --transport)'),
    );
    expect(() => applyTransportAlias(['toString'], aliases)).toThrow(ConfigError);
  });

  it('does nothing for a bin without aliases (the flag parser rejects stray words)', () => {
    expect(applyTransportAlias(['stdio'], undefined)).toEqual(['stdio']);
    expect(() => parseConfig(runnerOptions, ['stdio'], {})).toThrow(ConfigError);
  });
});

describe('mergeOptions (an app flag that claims a runner short letter)', () => {
  it('takes the letter off the runner flag, which keeps its long form', () => {
    const app = defineOptions({ vendor: { type: 'boolean', short: 'V', description: 'vendor mode' } });
    const merged = mergeOptions(app);
    expect(merged.vendor.short).toBe('V');
    expect('short' in merged.version).toBe(false);
    expect(parseConfig(merged, ['--version'], {}).version).toBe(true);
    expect(parseConfig(merged, ['-V'], {})).toMatchObject({ vendor: true, version: false });
    expect(formatHelp('x', 'd', merged)).toMatch(/^ {6}--version/m);
  });

  it('-V is --version on every bin; -v is free for a bin of its own (git: verbose, as in the reference)', () => {
    expect(runnerOptions.version.short).toBe('V');
    expect(mergeOptions({}).version.short).toBe('V');
    expect(parseConfig(mergeOptions({}), ['-V'], {}).version).toBe(true);
    expect(() => parseConfig(mergeOptions({}), ['-v'], {})).toThrow(/Unknown option '-v'/);
    const git = mergeOptions(defineOptions({ verbose: { type: 'boolean', short: 'v', description: 'more logs' } }));
    expect(parseConfig(git, ['-v'], {})).toMatchObject({ verbose: true, version: false });
    expect(parseConfig(git, ['-V'], {})).toMatchObject({ verbose: false, version: true });
    expect(formatHelp('x', 'd', git)).toMatch(/^ {2}-V, --version/m);
  });
});
