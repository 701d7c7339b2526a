/**
 * The profile a user gets without `--profile`: the one matching the reference's npm `latest`
 * (`@modelcontextprotocol/server-everything@2026.8.31`, kebab-case tools), so a client written against today's
 * reference finds its tools. The other profiles stay one flag away.
 */
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { options } from '../src/config.js';
import { createEverythingServer } from '../src/server.js';

describe('the default profile', () => {
  it('is current: the factory without a profile serves the 2026.8.31 kebab-case tools', async () => {
    await using pair = await connectInMemory(createEverythingServer());
    expect(pair.client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything', version: '2.0.0' });
    const names = (await pair.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-env', 'trigger-long-running-operation']));
    expect(names.filter((n) => /[A-Z]/.test(n))).toEqual([]);
  });

  it('is current for the CLI too (--profile / EVERYTHING_PROFILE unset)', () => {
    expect(options.profile.default).toBe('current');
  });

  it('keeps legacy behind --profile legacy (the camelCase 2025.11.25 tools)', async () => {
    await using pair = await connectInMemory(createEverythingServer({ profile: 'legacy' }));
    const names = (await pair.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'add', 'printEnv', 'longRunningOperation']));
  });
});
