/** The reference's own suite, ported (see ./helpers.ts): upstream `server.test.ts`. */
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createEverythingServer } from '../../../src/server.js';

describe('server.test.ts (5)', () => {
  it('6.1.1 the factory returns a server; its cleanup is closing it', async () => {
    const server = createEverythingServer({ profile: 'current' });
    expect(server).toBeInstanceOf(McpServer);
    await expect(server.close()).resolves.toBeUndefined();
  });
  it('6.1.2 cleanup (close) is a function', () => {
    expect(typeof createEverythingServer({ profile: 'current' }).close).toBe('function');
  });
  it('6.1.3 server and server.server are defined', () => {
    const server = createEverythingServer({ profile: 'current' });
    expect(server).toBeDefined();
    expect(server.server).toBeDefined();
  });
  it('6.1.4 server.server.oninitialized is set', () => {
    expect(createEverythingServer({ profile: 'current' }).server.oninitialized).toBeTypeOf('function');
  });
  it('6.1.5 two calls return different server instances', () => {
    const a = createEverythingServer({ profile: 'current' });
    const b = createEverythingServer({ profile: 'current' });
    expect(a).not.toBe(b);
    expect(a.server).not.toBe(b.server);
  });
});
