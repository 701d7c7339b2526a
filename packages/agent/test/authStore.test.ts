// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${env:NAME}` in plain strings is the config file syntax under test.
/**
 * The pieces under the OAuth flow on their own: the token store's files (modes, atomic writes, one
 * file per server name and URL), the loopback callback (one-shot, `state` checked, nothing an
 * attacker wrote echoed), the config's `oauth`, and the config directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCallbackListener } from '../src/auth/callback.js';
import { createTokenStore, defaultConfigDir, loginRequiredMessage, parseServersConfig } from '../src/index.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-agent-store-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const tokens = { access_token: 'at-secret', token_type: 'Bearer', refresh_token: 'rt-secret' };

describe('token store', () => {
  it('writes one 0600 file per server into a 0700 directory (made private if it was not), atomically', async () => {
    const dir = join(tempDir(), 'auth');
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const store = createTokenStore(dir);
    const a = { name: 'a', url: 'https://example.com/mcp' };
    await store.update(a, (r) => {
      r.tokens = tokens;
    });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = await readdir(dir);
    expect(files).toEqual([expect.stringMatching(/^a-[0-9a-f]{16}\.json$/)]);
    expect((await stat(join(dir, files[0] as string))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(join(dir, files[0] as string), 'utf8'))).toEqual({
      name: 'a',
      url: 'https://example.com/mcp',
      tokens,
    });
    // Another store over the same directory reads it back.
    expect((await createTokenStore(dir).read(a))?.tokens).toEqual(tokens);
  });

  it('keys records by name and canonical URL: another name, another URL, or a foreign file read as nothing', async () => {
    const dir = tempDir();
    const store = createTokenStore(dir);
    await store.update({ name: 'a', url: 'https://example.com/mcp#frag' }, (r) => {
      r.tokens = tokens;
    });
    expect((await store.read({ name: 'a', url: 'https://example.com/mcp' }))?.tokens).toEqual(tokens);
    expect(await store.read({ name: 'b', url: 'https://example.com/mcp' })).toBeUndefined();
    expect(await store.read({ name: 'a', url: 'https://example.com/other' })).toBeUndefined();
  });

  it('serializes concurrent updates (none lost) and removes a record', async () => {
    const store = createTokenStore(tempDir());
    const key = { name: 'a', url: 'https://example.com/mcp' };
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.update(key, (r) => {
          r.tokens = { ...tokens, scope: `${r.tokens?.scope ?? ''} s${i}`.trim() };
        }),
      ),
    );
    expect((await store.read(key))?.tokens?.scope?.split(' ')).toHaveLength(10);
    expect(await readdir(store.dir)).toHaveLength(1);
    expect(await store.remove(key)).toBe(true);
    expect(await store.remove(key)).toBe(false);
    expect(await readdir(store.dir)).toEqual([]);
  });

  it('a write that cannot happen names the file, never the record', async () => {
    // A file where the directory should be (fails for root too, unlike a read-only directory).
    const blocked = join(tempDir(), 'auth');
    await writeFile(blocked, '');
    const store = createTokenStore(blocked);
    const error = await store
      .update({ name: 'a', url: 'https://example.com/mcp' }, (r) => {
        r.tokens = tokens;
      })
      .catch((e: unknown) => e as Error);
    expect((error as Error).message).toMatch(/^cannot write the token file .*a-[0-9a-f]{16}\.json: /);
    expect((error as Error).message).not.toContain('secret');
  });
});

describe('config directory', () => {
  it('is MCP_AGENT_CONFIG_DIR, else $XDG_CONFIG_HOME/mcp-agent, else ~/.config/mcp-agent', () => {
    expect(defaultConfigDir({ MCP_AGENT_CONFIG_DIR: '/x/y', XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe('/x/y');
    expect(defaultConfigDir({ XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/mcp-agent');
    expect(defaultConfigDir({ XDG_CONFIG_HOME: 'relative', HOME: '/home/u' })).toBe('/home/u/.config/mcp-agent');
    expect(defaultConfigDir({ HOME: '/home/u' })).toBe('/home/u/.config/mcp-agent');
  });
});

describe('loopback callback', () => {
  const call = async (redirectUrl: string, query: string) => {
    const response = await fetch(`${redirectUrl}?${query}`);
    return { status: response.status, body: await response.text() };
  };

  it('listens on 127.0.0.1, hands over the callback with the right state once, then stops listening', async () => {
    const listener = await startCallbackListener({ expectedState: () => 'st' });
    expect(listener.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const origin = new URL(listener.redirectUrl).origin;
    expect((await fetch(`${origin}/other`)).status).toBe(404);
    expect((await call(listener.redirectUrl, 'code=c1&state=st&iss=https%3A%2F%2Fas')).status).toBe(200);
    const params = await listener.wait();
    expect(Object.fromEntries(params)).toEqual({ code: 'c1', state: 'st', iss: 'https://as' });
    await expect(fetch(listener.redirectUrl)).rejects.toThrow();
  });

  it('with rounds: hands over one callback per round at the same address, refuses a state already used', async () => {
    let state = 's1';
    const listener = await startCallbackListener({ expectedState: () => state, rounds: 2 });
    try {
      expect((await call(listener.redirectUrl, 'code=c1&state=s1')).status).toBe(200);
      expect((await listener.wait()).get('code')).toBe('c1');
      // The same answer again (a reloaded page) is refused but does not end the login.
      expect((await call(listener.redirectUrl, 'code=c1&state=s1')).status).toBe(400);
      state = 's2';
      expect((await call(listener.redirectUrl, 'code=c2&state=s2')).status).toBe(200);
      expect((await listener.wait()).get('code')).toBe('c2');
      await expect(fetch(listener.redirectUrl)).rejects.toThrow();
    } finally {
      await listener.close();
    }
  });

  it('ignores a callback with a wrong state (400, one line) and keeps waiting for the right one', async () => {
    const lines: string[] = [];
    const listener = await startCallbackListener({ expectedState: () => 'st', log: (line) => lines.push(line) });
    try {
      const waiting = listener.wait();
      // Another local process answers first, with and without an error: neither ends the login.
      const wrong = await call(listener.redirectUrl, 'code=c&state=other');
      expect(wrong.status).toBe(400);
      expect(wrong.body).toContain('state mismatch');
      expect((await call(listener.redirectUrl, 'state=other&error=access_denied')).status).toBe(400);
      expect((await call(listener.redirectUrl, 'code=c')).status).toBe(400);
      expect(lines).toEqual(Array(3).fill('ignored a callback whose state does not belong to this login; still waiting for the browser'));
      expect((await call(listener.redirectUrl, 'code=right&state=st')).status).toBe(200);
      expect((await waiting).get('code')).toBe('right');
    } finally {
      await listener.close();
    }
  });

  it('logs only the first few ignored callbacks', async () => {
    const lines: string[] = [];
    const listener = await startCallbackListener({ expectedState: () => 'st', log: (line) => lines.push(line) });
    try {
      for (let i = 0; i < 8; i += 1) expect((await call(listener.redirectUrl, `code=c&state=x${i}`)).status).toBe(400);
      expect(lines).toHaveLength(6);
      expect(lines.at(-1)).toBe('further callbacks with a wrong state are ignored without a line each');
    } finally {
      await listener.close();
    }
  });

  it('fails the login on an error redirect with the right state, without echoing what the sender wrote', async () => {
    const refused = await startCallbackListener({ expectedState: () => 'st' });
    const reply = await call(refused.redirectUrl, 'state=st&error=access_denied&error_description=%3Cscript%3Eevil');
    expect(reply.status).toBe(400);
    expect(reply.body).not.toContain('evil');
    await expect(refused.wait()).rejects.toThrow(/^the authorization server refused the login \(access_denied\)$/);
  });

  it('gives up after its timeout, and on close', async () => {
    const slow = await startCallbackListener({ expectedState: () => 'st', timeoutMs: 50 });
    await expect(slow.wait()).rejects.toThrow('no answer from the browser within 0.05 s');
    const closed = await startCallbackListener({ expectedState: () => 'st' });
    const waiting = closed.wait();
    waiting.catch(() => {});
    await closed.close();
    await expect(waiting).rejects.toThrow('the login was cancelled');
  });

  it('takes the preferred port when it is free, another one when it is not', async () => {
    const first = await startCallbackListener({ expectedState: () => undefined });
    const port = Number(new URL(first.redirectUrl).port);
    const second = await startCallbackListener({ expectedState: () => undefined, preferredPort: port });
    expect(Number(new URL(second.redirectUrl).port)).not.toBe(port);
    await first.close();
    await second.close();
    const third = await startCallbackListener({ expectedState: () => undefined, preferredPort: port });
    expect(Number(new URL(third.redirectUrl).port)).toBe(port);
    await third.close();
  });
});

describe('config: oauth', () => {
  const parse = (entry: unknown, env: NodeJS.ProcessEnv = {}) => parseServersConfig({ mcpServers: { web: entry } }, { baseDir: '/', env });

  it('reads a pre-registered client (secret from the environment), scopes and a metadata document URL', () => {
    const [config] = parse(
      {
        url: 'https://example.com/mcp',
        oauth: { clientId: 'id', clientSecret: '${env:SECRET}', scopes: ['a', 'b:c'], clientMetadataUrl: 'https://me.example/client.json' },
      },
      { SECRET: 's3' },
    );
    expect(config).toMatchObject({
      kind: 'http',
      oauth: { clientId: 'id', clientSecret: 's3', scopes: ['a', 'b:c'], clientMetadataUrl: 'https://me.example/client.json' },
    });
  });

  it('names the field and the problem', () => {
    const cases: [unknown, string][] = [
      [{ url: 'https://e/mcp', oauth: 'x' }, 'mcpServers.web.oauth: expected an object'],
      [{ url: 'https://e/mcp', oauth: { clientID: 'x' } }, 'mcpServers.web.oauth.clientID: unknown key'],
      [{ url: 'https://e/mcp', oauth: { clientSecret: 'x' } }, 'mcpServers.web.oauth.clientSecret: needs "clientId" next to it'],
      [{ url: 'https://e/mcp', oauth: { scopes: ['a b'] } }, 'mcpServers.web.oauth.scopes[0]: not a scope name'],
      [
        { url: 'https://e/mcp', oauth: { clientMetadataUrl: 'http://e/c.json' } },
        'mcpServers.web.oauth.clientMetadataUrl: expected an https URL with a path',
      ],
      [{ url: 'https://e/mcp', oauth: { clientId: '${env:NOPE}' } }, 'mcpServers.web.oauth.clientId: environment variable NOPE is not set'],
    ];
    for (const [entry, message] of cases) expect(() => parse(entry)).toThrow(message);
  });
});

describe('the needs-login line', () => {
  it('names the command, quoting a name the shell would split', () => {
    expect(loginRequiredMessage('web')).toBe('server "web" needs a login: run mcp-agent login web');
    expect(loginRequiredMessage("my server's")).toBe(`server "my server's" needs a login: run mcp-agent login 'my server'\\''s'`);
  });
});
