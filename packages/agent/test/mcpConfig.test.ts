// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` in plain strings is the config file syntax under test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpError, loadServersConfig, type McpError, parseServersConfig, type ServerConfig } from '../src/index.js';

const baseDir = '/base/dir';
const env = { TOKEN: 'secret-token', HOST: 'example.com', HOME: '/home/ada' };

function parse(json: unknown, options: { env?: NodeJS.ProcessEnv } = {}): ServerConfig[] {
  return parseServersConfig(json, { baseDir, env: options.env ?? env });
}

/** The CONFIG_ERROR message `run` throws (fails the test if it throws anything else, or nothing). */
function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isMcpError(error, 'CONFIG_ERROR')).toBe(true);
    const message = (error as McpError).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a CONFIG_ERROR');
}

describe('parseServersConfig', () => {
  it('reads a Claude Desktop stdio entry with defaults filled in', () => {
    expect(parse({ mcpServers: { memory: { command: 'npx', args: ['-y', '@mcpkit/server-memory'] } } })).toEqual([
      { kind: 'stdio', name: 'memory', command: 'npx', args: ['-y', '@mcpkit/server-memory'], env: {}, approval: { tools: {} } },
    ]);
  });

  it('reads HTTP entries: no type and "http" fall back to SSE, "streamable-http" and "sse" do not', () => {
    const configs = parse({
      mcpServers: {
        plain: { url: 'https://example.com/mcp', headers: { 'X-Key': 'k' } },
        http: { type: 'http', url: 'http://127.0.0.1:3000/mcp' },
        streamable: { type: 'streamable-http', url: 'https://example.com/mcp' },
        legacy: { type: 'sse', url: 'https://example.com/sse' },
      },
    });
    expect(configs.map((c) => (c.kind === 'http' ? [c.name, c.transport] : []))).toEqual([
      ['plain', 'auto'],
      ['http', 'auto'],
      ['streamable', 'streamable-http'],
      ['legacy', 'sse'],
    ]);
    expect(configs[0]).toMatchObject({ kind: 'http', url: 'https://example.com/mcp', headers: { 'X-Key': 'k' } });
  });

  it('reads VS Code\'s "servers" with "type": "stdio", next to mcpServers, in file order', () => {
    const configs = parse({
      mcpServers: { a: { command: 'a' } },
      servers: { b: { type: 'stdio', command: 'b', args: ['--x'] }, c: { type: 'http', url: 'https://c.example/mcp' } },
      inputs: [{ id: 'ignored' }],
    });
    expect(configs.map((c) => [c.name, c.kind])).toEqual([
      ['a', 'stdio'],
      ['b', 'stdio'],
      ['c', 'http'],
    ]);
  });

  it('substitutes ${env:NAME} and ${NAME} in command, args, env, url and headers', () => {
    const [stdio, http] = parse({
      mcpServers: {
        s: { command: '${HOME}/bin/server', args: ['--token=${env:TOKEN}'], env: { API_KEY: '${TOKEN}', PLAIN: 'x' } },
        h: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${env:TOKEN}' } },
      },
    });
    expect(stdio).toMatchObject({
      command: '/home/ada/bin/server',
      args: ['--token=secret-token'],
      env: { API_KEY: 'secret-token', PLAIN: 'x' },
    });
    expect(http).toMatchObject({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer secret-token' } });
  });

  it('names a missing variable and where it was used, without printing other values', () => {
    const message = configError(() =>
      parse({ mcpServers: { web: { url: 'https://x/mcp', headers: { Authorization: 'Bearer ${env:API_TOKEN}' } } } }),
    );
    expect(message).toBe('mcpServers.web.headers.Authorization: environment variable API_TOKEN is not set (used as ${env:API_TOKEN})');
    expect(configError(() => parse({ mcpServers: { s: { command: 'x', args: ['${input:key}'] } } }))).toMatch(
      /^mcpServers\.s\.args\[0\]: unsupported variable \$\{input:key\}/,
    );
  });

  it('skips disabled servers, resolves a relative cwd against the config dir, reads timeout', () => {
    const configs = parse({
      mcpServers: {
        off: { command: 'x', disabled: true },
        on: { command: 'y', cwd: 'servers/on', timeout: 5000, disabled: false },
        abs: { command: 'z', cwd: '/opt/z' },
      },
    });
    expect(configs.map((c) => c.name)).toEqual(['on', 'abs']);
    expect(configs[0]).toMatchObject({ cwd: '/base/dir/servers/on', timeoutMs: 5000 });
    expect(configs[1]).toMatchObject({ cwd: '/opt/z' });
  });

  it('reads approval as a mode or { default, tools }, and alwaysAllow / autoApprove lists', () => {
    const configs = parse({
      mcpServers: {
        a: { command: 'a', approval: 'deny' },
        b: { command: 'b', approval: { default: 'ask', tools: { read: 'allow', wipe: 'deny' } } },
        cline: { command: 'c', alwaysAllow: ['read_graph'] },
        roo: { command: 'd', autoApprove: ['search'], approval: { tools: { search: 'ask' } } },
      },
    });
    expect(configs.map((c) => c.approval)).toEqual([
      { default: 'deny', tools: {} },
      { default: 'ask', tools: { read: 'allow', wipe: 'deny' } },
      { tools: { read_graph: 'allow' } },
      { tools: { search: 'ask' } },
    ]);
  });

  it('reads autoApproveReadOnly as a boolean, and refuses anything else naming the key', () => {
    const configs = parse({
      mcpServers: { off: { command: 'a', autoApproveReadOnly: false }, on: { command: 'b', autoApproveReadOnly: true } },
    });
    expect(configs.map((c) => c.approval)).toEqual([
      { tools: {}, autoAllowReadOnly: false },
      { tools: {}, autoAllowReadOnly: true },
    ]);
    expect(() => parse({ mcpServers: { s: { command: 'x', autoApproveReadOnly: 'no' } } })).toThrow(
      'mcpServers.s.autoApproveReadOnly: expected true or false, got string "no"',
    );
  });

  it('accepts no servers at all', () => {
    expect(parse({})).toEqual([]);
    expect(parse({ mcpServers: {} })).toEqual([]);
  });

  it('keeps any server name as is (sanitising is only for tool names)', () => {
    expect(parse({ mcpServers: { 'my server.v2': { command: 'x' } } })[0]?.name).toBe('my server.v2');
  });

  it.each([
    [{ mcpServers: { memory: {} } }, 'mcpServers.memory: needs "command" (stdio) or "url" (HTTP)'],
    [{ mcpServers: { memory: { args: ['x'] } } }, 'mcpServers.memory: needs "command" (stdio) or "url" (HTTP)'],
    [{ mcpServers: { web: { url: 'ftp://example.com' } } }, 'mcpServers.web.url: not an http(s) URL'],
    [{ mcpServers: { web: { url: 'not a url' } } }, 'mcpServers.web.url: not an http(s) URL'],
    [
      { mcpServers: { both: { command: 'x', url: 'https://x' } } },
      'mcpServers.both: has both "command" and "url"; a server is either stdio or HTTP',
    ],
    [{ mcpServers: { s: { type: 'sse', command: 'x' } } }, 'mcpServers.s: needs "url" (type "sse")'],
    [{ mcpServers: { s: { type: 'stdio', url: 'https://x' } } }, 'mcpServers.s: needs "command" (type "stdio")'],
    [
      { mcpServers: { s: { type: 'websocket', url: 'https://x' } } },
      'mcpServers.s.type: expected "stdio", "http", "streamable-http" or "sse", got string "websocket"',
    ],
    [{ mcpServers: { s: { command: 'x', args: 'a b' } } }, 'mcpServers.s.args: expected an array of strings, got string "a b"'],
    [{ mcpServers: { s: { command: 'x', args: ['a', 1] } } }, 'mcpServers.s.args[1]: expected a string, got number 1'],
    [{ mcpServers: { s: { command: 'x', env: { PORT: 8080 } } } }, 'mcpServers.s.env.PORT: expected a string, got number 8080'],
    [
      { mcpServers: { s: { command: 'x', approval: 'maybe' } } },
      'mcpServers.s.approval: expected "allow", "deny" or "ask", got string "maybe"',
    ],
    [
      { mcpServers: { s: { command: 'x', approval: { tools: { t: true } } } } },
      'mcpServers.s.approval.tools.t: expected "allow", "deny" or "ask", got boolean true',
    ],
    [
      { mcpServers: { s: { command: 'x', approval: { defualt: 'allow' } } } },
      'mcpServers.s.approval.defualt: unknown key (expected "default" or "tools")',
    ],
    [
      { mcpServers: { s: { command: 'x', alwaysAllow: 'read' } } },
      'mcpServers.s.alwaysAllow: expected an array of tool names, got string "read"',
    ],
    [
      { mcpServers: { s: { command: 'x', timeout: -1 } } },
      'mcpServers.s.timeout: expected a positive number of milliseconds, got number -1',
    ],
    [{ mcpServers: { s: { command: 'x', disabled: 'yes' } } }, 'mcpServers.s.disabled: expected true or false, got string "yes"'],
    [{ mcpServers: { 'my server': 'npx foo' } }, 'mcpServers["my server"]: expected an object, got string "npx foo"'],
    [{ mcpServers: [] }, 'mcpServers: expected an object of servers by name, got an array'],
    [{ mcpServers: { a: { command: 'x' } }, servers: { a: { command: 'y' } } }, 'servers.a: the name is also used by mcpServers.a'],
    [[], 'config: expected a JSON object with "mcpServers", got an array'],
  ])('rejects %j', (json, message) => {
    expect(configError(() => parse(json))).toBe(message);
  });
});

describe('loadServersConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpkit-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function file(name: string, text: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  }

  it('reads a file, resolving cwd against its directory and variables from the given env', async () => {
    const path = await file(
      'servers.json',
      JSON.stringify({ mcpServers: { m: { command: 'node', args: ['${env:SCRIPT}'], cwd: 'sub' } } }),
    );
    expect(await loadServersConfig(path, { SCRIPT: 'server.js' })).toEqual([
      { kind: 'stdio', name: 'm', command: 'node', args: ['server.js'], env: {}, cwd: join(dir, 'sub'), approval: { tools: {} } },
    ]);
  });

  it("accepts VS Code's comments and trailing commas (strings with // are left alone)", async () => {
    const path = await file(
      'mcp.json',
      '\uFEFF{\n  // my servers\n  "servers": {\n    /* the web one */\n    "web": { "type": "http", "url": "https://example.com/a//b", },\n  },\n}\n',
    );
    expect(await loadServersConfig(path, {})).toMatchObject([{ name: 'web', url: 'https://example.com/a//b' }]);
  });

  it('reports invalid JSON with the file, line and column, without quoting the file', async () => {
    const path = await file(
      'bad.json',
      '{\n  "mcpServers": {\n    "a": { "command": "x", "env": { "KEY": "sk-secret" } }\n    "b": {}\n  }\n}\n',
    );
    const error = await loadServersConfig(path).catch((e: unknown) => e);
    expect(isMcpError(error, 'CONFIG_ERROR')).toBe(true);
    expect((error as McpError).message).toBe(`${path}:4:5: invalid JSON: expected ',' or '}'`);
    const truncated = await file('truncated.json', '{"mcpServers": {');
    await expect(loadServersConfig(truncated)).rejects.toThrow(`${truncated}:1:17: invalid JSON: unexpected end of the file`);
    const token = await file('token.json', '{"mcpServers": }');
    await expect(loadServersConfig(token)).rejects.toThrow(`${token}:1:16: invalid JSON: unexpected "}"`);
  });

  it('reports a missing file as a CONFIG_ERROR', async () => {
    const path = join(dir, 'nope.json');
    await expect(loadServersConfig(path)).rejects.toMatchObject({
      kind: 'CONFIG_ERROR',
      message: `cannot read the config file ${path}: no such file`,
    });
  });

  it('an empty servers file is fine', async () => {
    expect(await loadServersConfig(await file('empty.json', '{ "mcpServers": {} }'))).toEqual([]);
  });
});
