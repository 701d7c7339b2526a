import { describe, expect, it } from 'vitest';
import { userMemoryPath } from '../src/paths.js';
import { createMemoryStore } from '../src/store/memoryStore.js';
import type { GraphStore } from '../src/store/types.js';
import { createUserGraphs, requestSubject, userGraphKey } from '../src/userGraphs.js';

const as = (subject: string | undefined, clientId = 'app') => ({
  http: { authInfo: { token: 't', clientId, scopes: [], ...(subject !== undefined ? { extra: { subject } } : {}) } },
});

describe('requestSubject', () => {
  it('is the token subject of a user', () => {
    expect(requestSubject(as('alice'))).toBe('alice');
  });
  it('refuses a request without a token, without a subject, or whose subject is the client itself (client credentials)', () => {
    expect(() => requestSubject({})).toThrow(/carries no access token/);
    expect(() => requestSubject(as(undefined))).toThrow(/names no user/);
    expect(() => requestSubject(as('app', 'app'))).toThrow(/names no user/);
  });
});

describe('userGraphKey and userMemoryPath', () => {
  it('is 32 hex digits, different per subject; the file is a sibling of the memory file whatever the subject', () => {
    const key = userGraphKey('../../etc/passwd');
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(userGraphKey('alice')).not.toBe(userGraphKey('bob'));
    expect(userMemoryPath('/data/memory.jsonl', key)).toBe(`/data/memory.user-${key}.jsonl`);
    expect(userMemoryPath('/data/graph', key)).toBe(`/data/graph.user-${key}.jsonl`);
    expect(() => userMemoryPath('/data/memory.jsonl', '../x')).toThrow();
  });
});

describe('createUserGraphs', () => {
  function opener() {
    const opened: string[] = [];
    const closed: string[] = [];
    const open = async (key: string): Promise<GraphStore> => {
      opened.push(key);
      const store = createMemoryStore();
      return { ...store, close: async () => void closed.push(key) } as GraphStore;
    };
    return { open, opened, closed };
  }

  it("opens each user's graph once and keeps users apart", async () => {
    const o = opener();
    const users = createUserGraphs({ open: o.open });
    const alice1 = await users.use(as('alice'), async (s) => s);
    const alice2 = await users.use(as('alice'), async (s) => s);
    const bob = await users.use(as('bob'), async (s) => s);
    expect(alice1).toBe(alice2);
    expect(bob).not.toBe(alice1);
    expect(o.opened).toEqual([userGraphKey('alice'), userGraphKey('bob')]);
    await users.close();
    expect(o.closed.sort()).toEqual([userGraphKey('alice'), userGraphKey('bob')].sort());
  });

  it('closes the least recently used idle graph beyond maxOpen, never one in use', async () => {
    const o = opener();
    const users = createUserGraphs({ open: o.open, maxOpen: 1 });
    const held = await users.hold(as('alice'));
    await users.use(as('bob'), async () => {});
    await expect.poll(() => o.closed).toEqual([userGraphKey('bob')]); // closed in the background
    held.release();
    await users.use(as('carol'), async () => {});
    await expect.poll(() => o.closed).toEqual([userGraphKey('bob'), userGraphKey('alice')]);
    await users.close();
  });

  it('refuses a request without a user before opening anything', async () => {
    const o = opener();
    const users = createUserGraphs({ open: o.open });
    await expect(users.use(as(undefined), async () => 1)).rejects.toThrow(/names no user/);
    expect(o.opened).toEqual([]);
  });
});
