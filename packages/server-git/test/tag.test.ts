import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, text, write } from './helpers.js';

describe('git_tag', () => {
  it.skipIf(!hasGit)('lists tags sorted like git tag, with a glob pattern like git tag -l', async () => {
    using fx = gitRepo();
    for (const t of ['v1.10', 'v1.2', 'release/a', 'V0', 'v2.0']) fx.git('tag', t);
    fx.git('tag', '-a', 'v1.0', '-m', 'annotated');
    fx.git('pack-refs', '--all');
    fx.git('tag', 'loose-after-pack');
    await using pair = await connect({ repositories: [fx.path] });
    const all = await pair.client.callTool({ name: 'git_tag', arguments: { repo_path: fx.repo } });
    expect(text(all)).toBe(fx.git('tag').replace(/\n$/, ''));
    for (const pattern of ['v1.*', 'v?.?', 'release/*', '*a*', 'v[12].*']) {
      const res = await pair.client.callTool({ name: 'git_tag', arguments: { repo_path: fx.repo, pattern } });
      expect(text(res), pattern).toBe(fx.git('tag', '-l', pattern).replace(/\n$/, ''));
    }
    const data = all.structuredContent as { tags: { name: string; annotated: boolean; target: string }[] };
    expect(data.tags.find((t) => t.name === 'v1.0')?.annotated).toBe(true);
    expect(data.tags.find((t) => t.name === 'v1.0')?.target).toBe(fx.git('rev-parse', 'HEAD').trim());
  });

  it('lists nothing in a repository without tags', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_tag', arguments: { repo_path: fx.repo } });
    expect(res.isError).toBeFalsy();
    expect(text(res)).toBe('');
  });

  it.skipIf(!hasGit)('creates lightweight and annotated tags that git reads back', async () => {
    using fx = gitRepo();
    const first = fx.git('rev-parse', 'HEAD').trim();
    write(fx.repo, { 'b.txt': 'b' });
    fx.git('add', 'b.txt');
    fx.git('commit', '-q', '-m', 'second');
    await using pair = await connect({ repositories: [fx.path] });
    const light = await pair.client.callTool({ name: 'git_tag', arguments: { repo_path: fx.repo, name: 'v0.1', target: 'HEAD~1' } });
    expect(light.isError, text(light)).toBeFalsy();
    expect(text(light)).toBe(`Created lightweight tag 'v0.1' at ${first.slice(0, 7)}`);
    expect(fx.git('rev-parse', 'v0.1').trim()).toBe(first);
    expect(fx.git('cat-file', '-t', 'v0.1').trim()).toBe('commit');
    const ann = await pair.client.callTool({ name: 'git_tag', arguments: { repo_path: fx.repo, name: 'v1.0', message: 'Release 1.0' } });
    expect(ann.isError, text(ann)).toBeFalsy();
    expect(fx.git('cat-file', '-t', 'v1.0').trim()).toBe('tag');
    expect(fx.git('rev-parse', 'v1.0^{commit}').trim()).toBe(fx.git('rev-parse', 'HEAD').trim());
    const body = fx.git('cat-file', 'tag', 'v1.0');
    expect(body).toContain('tagger Test User <test@example.com> 1705325425 +0100\n\nRelease 1.0\n');
    expect(fx.git('tag', '-l', '-n1', 'v1.0')).toMatch(/^v1\.0\s+Release 1\.0\n$/);
  });

  it('refuses an existing tag, a bad name and an unknown target, creating nothing', async () => {
    using fx = gitRepo();
    fx.git('tag', 'v1');
    await using pair = await connect({ repositories: [fx.path] });
    const refs = fx.git('for-each-ref');
    for (const args of [
      { name: 'v1' },
      { name: 'bad..name' },
      { name: 'ok', target: 'nope' },
      { name: '-f' },
      { name: 'x', target: '--evil' },
    ]) {
      const res = await pair.client.callTool({ name: 'git_tag', arguments: { repo_path: fx.repo, ...args } });
      expect(res.isError, JSON.stringify(args)).toBe(true);
    }
    expect(fx.git('for-each-ref')).toBe(refs);
  });
});
