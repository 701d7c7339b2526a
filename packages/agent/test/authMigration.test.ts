/**
 * A server that moves to another authorization server (SEP-2352), end to end: two real
 * authorization servers (oidc-provider on loopback) and the built memory server restarted on the
 * same port behind the second one. The token of the first is then refused; the agent must not keep
 * going back to the first one with the discovery it stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry, createTokenStore, login, type TokenStore } from '../src/index.js';
import { type MovingMemory, startMovingMemory, testBrowser } from './authFixture.ts';

let setup: MovingMemory;
beforeAll(async () => {
  setup = await startMovingMemory();
}, 60_000);
afterAll(async () => {
  await setup?.close();
});

const NEEDS_LOGIN = 'server "memory" needs a login: run mcp-agent login memory';

async function stored(store: TokenStore) {
  return store.read({ name: 'memory', url: setup.endpoint });
}

/** What a plain connect (no login running) reports, and whether a tool call then works. */
async function connectAndRead(store: TokenStore) {
  const registry = await createRegistry([setup.config()], { oauth: { store } });
  try {
    const [report] = registry.serverReports();
    const call = report?.status === 'connected' ? await registry.callTool('memory__read_graph', {}) : undefined;
    return { report, called: call !== undefined && call.isError !== true };
  } finally {
    await registry.close();
  }
}

/** After a login that went first to the old authorization server, then to the new one: all is the new one's, and it works. */
async function expectMovedLogin(store: TokenStore, opened: readonly string[]) {
  const { first, second } = setup;
  expect(opened.map((url) => new URL(url).origin)).toEqual([first.issuer, second.issuer]);
  const record = await stored(store);
  expect(record?.clientInformation?.issuer).toBe(second.issuer);
  expect(record?.tokens?.issuer).toBe(second.issuer);
  expect(await connectAndRead(store)).toMatchObject({ report: { status: 'connected', auth: 'oauth' }, called: true });
}

describe('a server that moved to another authorization server', () => {
  it('a plain connect with the old token reports "needs login" without registering anywhere; login then uses the new one', async () => {
    const { first, second } = setup;
    const store = createTokenStore(setup.tempDir());
    const browser = testBrowser([first, second]);
    expect(await login(setup.config(), { store, openUrl: browser.openUrl, log: () => {} })).toMatchObject({ status: 'logged-in' });
    expect((await stored(store))?.clientInformation?.issuer).toBe(first.issuer);
    try {
      await setup.moveTo(second);
      const { report } = await connectAndRead(store);
      expect(report).toMatchObject({ status: 'failed', error: NEEDS_LOGIN, auth: 'needs login' });
      // A plain connect does not register at the new authorization server (that is the login's job).
      expect((await stored(store))?.clientInformation?.issuer).toBe(first.issuer);

      expect(await login(setup.config(), { store, openUrl: browser.openUrl, log: () => {} })).toMatchObject({ status: 'logged-in' });
      await expectMovedLogin(store, browser.opened);
    } finally {
      await setup.moveTo(first);
    }
  });

  it('during a login (after the code, before the token is used): one more round, at the new authorization server', async () => {
    const { first, second } = setup;
    const store = createTokenStore(setup.tempDir());
    // The browser comes back from the first authorization server only once the server has moved.
    const browser = testBrowser([first, second], 'alice', async (url) => {
      if (new URL(url).origin === first.issuer) await setup.moveTo(second);
    });
    try {
      expect(await login(setup.config(), { store, openUrl: browser.openUrl, log: () => {} })).toMatchObject({ status: 'logged-in' });
      await expectMovedLogin(store, browser.opened);
    } finally {
      await setup.moveTo(first);
    }
  });
});
