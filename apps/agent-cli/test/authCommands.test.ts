// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${env:NAME}` in plain strings is the config file syntax.
/**
 * `mcp-agent login`, `logout` and `servers`, through `main` (the code the bin runs), against a real
 * authorization server (oidc-provider) in front of the built memory server with `--oauth-*`; the
 * browser step walked over HTTP. Tokens must never reach stdout or stderr.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createTokenStore } from '@mcpkit/agent';
import { type ProtectedMemory, startProtectedMemory, testBrowser } from '@mcpkit/test-utils/protected-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { serverBin } from './helpers.js';

let setup: ProtectedMemory;
let configFile: string;
let configDir: string;
const STATIC_TOKEN = 'static-secret-0123456789';

beforeAll(async () => {
  setup = await startProtectedMemory(serverBin('@mcpkit/server-memory'));
  const dir = setup.tempDir();
  configFile = join(dir, 'servers.json');
  configDir = join(dir, 'config');
  await writeFile(
    configFile,
    JSON.stringify({
      mcpServers: {
        memory: { url: setup.endpoint, type: 'streamable-http' },
        pinned: { url: setup.endpoint, type: 'streamable-http', headers: { Authorization: 'Bearer ${env:PINNED_TOKEN}' } },
      },
    }),
  );
}, 60_000);
afterAll(async () => {
  await setup?.close();
});

function sink() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

async function run(args: string[], openUrl?: (url: string) => Promise<void>) {
  const stdout = sink();
  const stderr = sink();
  const code = await main({
    argv: args,
    env: { PATH: process.env.PATH, MCP_AGENT_CONFIG_DIR: configDir, PINNED_TOKEN: STATIC_TOKEN },
    stdin: process.stdin,
    stdout: stdout.stream,
    stderr: stderr.stream,
    ...(openUrl ? { openUrl } : {}),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

async function storedSecrets(): Promise<string[]> {
  const record = await createTokenStore(join(configDir, 'auth')).read({ name: 'memory', url: setup.endpoint });
  return [record?.tokens?.access_token, record?.tokens?.refresh_token].filter((t): t is string => typeof t === 'string');
}

describe('mcp-agent login / servers / logout', () => {
  it('servers before a login: the OAuth server needs a login, the static-token one is "token"', async () => {
    const { code, stdout, stderr } = await run(['servers', '-c', configFile, '--json']);
    expect(code).toBe(1);
    expect(stderr).toBe('mcp-agent: servers: 2 of 2 did not connect\n');
    expect(JSON.parse(stdout)).toEqual([
      {
        name: 'memory',
        transport: 'http',
        state: 'failed',
        error: 'server "memory" needs a login: run mcp-agent login memory',
        tools: 0,
        auth: 'needs login',
      },
      expect.objectContaining({ name: 'pinned', transport: 'http', state: 'failed', tools: 0, auth: 'token' }),
    ]);
    expect(stdout + stderr).not.toContain(STATIC_TOKEN);
  });

  it('login prints the URL, opens it, keeps the tokens in a private file, and says so without a token', async () => {
    const browser = testBrowser(setup.as);
    const { code, stdout, stderr } = await run(['login', 'memory', '-c', configFile], browser.openUrl);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(browser.opened).toHaveLength(1);
    expect(stderr).toContain(browser.opened[0]);
    expect(stderr).toContain('logged in to "memory" (9 tools)');
    const authDir = join(configDir, 'auth');
    const [file] = await readdir(authDir);
    expect((await stat(join(authDir, file as string))).mode & 0o777).toBe(0o600);
    const secrets = await storedSecrets();
    expect(secrets).toHaveLength(2);
    for (const secret of secrets) expect(stderr).not.toContain(secret);
  });

  it('servers after the login: connected over OAuth, as JSON and as a table, with no token anywhere', async () => {
    const json = await run(['servers', '-c', configFile, '--json']);
    expect(json.code).toBe(1); // pinned's token is refused
    expect(json.stderr).toBe('mcp-agent: servers: 1 of 2 did not connect\n');
    expect(JSON.parse(json.stdout)[0]).toEqual({
      name: 'memory',
      transport: 'streamable-http',
      state: 'connected',
      tools: 9,
      auth: 'oauth',
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'memory-server', version: expect.any(String) },
    });
    const text = await run(['servers', '-c', configFile]);
    expect(text.stdout).toMatch(/^memory\s+streamable-http\s+9\s+oauth\s+connected$/m);
    expect(text.stdout).toMatch(/^pinned\s+http\s+0\s+token\s+failed: /m);
    for (const secret of [...(await storedSecrets()), STATIC_TOKEN]) {
      expect(json.stdout + json.stderr + text.stdout + text.stderr).not.toContain(secret);
    }
    // Every server connected: exit 0, nothing on stderr.
    const onlyMemory = join(setup.tempDir(), 'memory-only.json');
    await writeFile(onlyMemory, JSON.stringify({ mcpServers: { memory: { url: setup.endpoint, type: 'streamable-http' } } }));
    const all = await run(['servers', '-c', onlyMemory]);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout).toMatch(/^memory\s+streamable-http\s+9\s+oauth\s+connected$/m);
  });

  it('logout revokes and deletes; the server needs a login again', async () => {
    const out = await run(['logout', 'memory', '-c', configFile]);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('logged out of "memory": tokens revoked at the authorization server and deleted');
    expect(await readdir(join(configDir, 'auth'))).toEqual([]);
    const after = await run(['servers', '-c', configFile, '--json']);
    expect(JSON.parse(after.stdout)[0]).toMatchObject({ name: 'memory', auth: 'needs login' });
    expect((await run(['logout', 'memory', '-c', configFile])).stderr).toContain('no login stored for "memory"');
  });

  it('refuses what it cannot do, in one line with exit 2', async () => {
    const cases: [string[], string][] = [
      [['login', '-c', configFile], 'mcp-agent: login: which server? mcp-agent login <server> -c <file>\n'],
      [['login', 'nope', '-c', configFile], 'mcp-agent: login: no server named "nope" in the config (it has: memory, pinned)\n'],
      [
        ['login', 'pinned', '-c', configFile],
        'mcp-agent: login: "pinned" sends a static credential from "headers"; remove it to use an OAuth login instead\n',
      ],
      [['login', 'memory'], 'mcp-agent: login: which servers config? pass -c <file>\n'],
      [['servers', '-c', configFile, '--scope', 'x'], 'mcp-agent: servers: --scope does not apply here\n'],
    ];
    for (const [args, message] of cases) {
      const out = await run(args);
      expect({ args, code: out.code, stderr: out.stderr }).toEqual({ args, code: 2, stderr: message });
    }
  });
});
