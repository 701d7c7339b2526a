/**
 * The client's roots for a 2026-07-28 client (no `--repository`): asked for with a multi-round-trip input
 * request on every call (that revision has no session to keep them in), with the same refusals as in the
 * 2025 era. The 2025 side (once per session, again after list_changed) is in confine.test.ts.
 */
import { pathToFileURL } from 'node:url';
import { connectV2InMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createGitServer } from '../src/server.js';
import { gitEnv, gitRepo, text } from './helpers.js';

const factory = () => createGitServer({ env: gitEnv(), home: '/nonexistent-home' });
const NO_ROOTS = /^No repository is allowed for this session\. Start the server with --repository <path>/;

describe('client roots on 2026-07-28 requests', () => {
  it('asks for the roots on each call and confines the call to them', async () => {
    using a = gitRepo();
    using b = gitRepo();
    let roots = [a.path];
    let asked = 0;
    await using pair = await connectV2InMemory(factory, { mode: '2026-07-28', capabilities: { roots: {} } });
    expect(pair.client.getProtocolEra()).toBe('modern');
    pair.client.setRequestHandler('roots/list', async () => {
      asked += 1;
      return { roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: 'workspace' })) };
    });
    const okA = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: a.repo } });
    expect(okA.isError, text(okA)).toBeFalsy();
    expect(text(okA)).toBe('Repository status:\nOn branch master\nnothing to commit, working tree clean');
    const noB = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: b.repo } });
    expect(noB.isError).toBe(true);
    expect(text(noB)).toBe(`Repository path '${b.repo}' is outside the allowed root '${a.path}'`);
    expect(asked).toBe(2);
    // No session: the next call sees the client's roots as they are now, without a list_changed.
    roots = [b.path];
    const okB = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: b.repo } });
    expect(okB.isError, text(okB)).toBeFalsy();
    expect(asked).toBe(3);
  });

  it('refuses every call, saying how to allow a repository, when the client has no roots capability', async () => {
    using fx = gitRepo();
    await using pair = await connectV2InMemory(factory, { mode: '2026-07-28' });
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(NO_ROOTS);
  });

  it('refuses the call when none of the roots the client gives is a folder here', async () => {
    using fx = gitRepo();
    await using pair = await connectV2InMemory(factory, { mode: '2026-07-28', capabilities: { roots: {} } });
    pair.client.setRequestHandler('roots/list', async () => ({
      roots: [{ uri: 'https://example.com/repo' }, { uri: pathToFileURL(`${fx.path}-missing`).href }],
    }));
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(NO_ROOTS);
  });

  it('with --repository, never asks the client', async () => {
    using fx = gitRepo();
    let asked = 0;
    await using pair = await connectV2InMemory(
      () => createGitServer({ repositories: [fx.path], env: gitEnv(), home: '/nonexistent-home' }),
      { mode: '2026-07-28', capabilities: { roots: {} } },
    );
    pair.client.setRequestHandler('roots/list', async () => {
      asked += 1;
      return { roots: [] };
    });
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(res.isError, text(res)).toBeFalsy();
    expect(asked).toBe(0);
  });
});
