import { silentLogger } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { createRemoteAccess } from '../src/engine/remote/http.js';
import { connect, gitRepo, hasGit, text } from './helpers.js';

describe.skipIf(!hasGit)('remote refusals name what was refused', () => {
  it('an ext:: remote is refused as the ext:: transport (it runs a command), not as ssh', async () => {
    using fx = gitRepo();
    fx.git('remote', 'add', 'origin', 'ext::sh -c touch% /tmp/pwned');
    const remote = await createRemoteAccess({}, {}, silentLogger);
    try {
      await using pair = await connect({ repositories: [fx.path], remote });
      const res = await pair.client.callTool({ name: 'git_fetch', arguments: { repo_path: fx.repo } });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain('uses the ext:: transport (a git remote helper that runs a command), which this server refuses');
      expect(text(res)).not.toContain('ssh;');
    } finally {
      await remote.close();
    }
  });

  it('plain http to an IPv6 loopback suggests --allow-host in the [::1]:port form', async () => {
    using fx = gitRepo();
    fx.git('remote', 'add', 'origin', 'http://[::1]:8123/repo.git');
    const remote = await createRemoteAccess({ allowPrivateNetwork: true }, {}, silentLogger);
    try {
      await using pair = await connect({ repositories: [fx.path], remote });
      const res = await pair.client.callTool({ name: 'git_fetch', arguments: { repo_path: fx.repo } });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain('--allow-host [::1]:8123');
    } finally {
      await remote.close();
    }
  });
});
