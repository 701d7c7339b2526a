/**
 * A hostile repository is input: a corrupt pack index, a cyclic delta, a decompression or delta bomb, or
 * an honest blob too large to hold is refused with an isError naming the object (or file) and the limit,
 * and never reaches isomorphic-git's own reader. The process (this test worker) stays up.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, hasGit, text } from './helpers.js';
import {
  claimObjects,
  deflateSync,
  delta,
  dropLoose,
  type PackEntry,
  packAll,
  twoCommits,
  writeLoose,
  writePack,
  zeros,
} from './hostileRepos.js';

const MiB = 1024 * 1024;
const fakeOid = () => randomBytes(20).toString('hex');

async function call(client: Awaited<ReturnType<typeof connect>>['client'], name: string, args: Record<string, unknown>) {
  const res = await client.callTool({ name, arguments: args });
  return { isError: res.isError === true, text: text(res) };
}

describe.skipIf(!hasGit)('hostile object stores', () => {
  it('an .idx whose fan-out claims 2^32 objects: damaged at that file, for show, log, status and checkout', async () => {
    using fx = twoCommits();
    const idx = packAll(fx);
    fx.git('branch', 'other');
    claimObjects(idx);
    await using c = await connect({ repositories: [fx.repo] });
    for (const [tool, args] of [
      ['git_show', { revision: 'HEAD' }],
      ['git_log', { max_count: 5 }],
      ['git_status', {}],
      ['git_checkout', { branch_name: 'other' }],
    ] as const) {
      const res = await call(c.client, tool, { repo_path: fx.repo, ...args });
      expect(res, tool).toMatchObject({ isError: true });
      expect(res.text, tool).toMatch(/object store is damaged at .*pack-[0-9a-f]{40}\.idx/);
      expect(res.text, tool).toMatch(/fan-out/);
    }
  });

  it('a ref-delta that is its own base: damaged at that object, and isomorphic-git (checkout) never reads it', async () => {
    using fx = twoCommits();
    const parent = fx.git('rev-parse', 'HEAD~1').trim();
    const d = deflateSync(delta(10, 1));
    writePack(fx.gitdir, [{ oid: fx.head, kind: 7, size: 10, zlib: d, base: fx.head }]);
    dropLoose(fx.gitdir, fx.head);
    // Written as files: git itself would read the crafted object (and spin on it for minutes).
    writeFileSync(join(fx.gitdir, 'refs', 'heads', 'evil'), `${fx.head}\n`);
    writeFileSync(join(fx.gitdir, 'refs', 'heads', 'master'), `${parent}\n`);
    await using c = await connect({ repositories: [fx.repo] });
    const show = await call(c.client, 'git_show', { repo_path: fx.repo, revision: 'evil' });
    expect(show).toMatchObject({ isError: true });
    expect(show.text).toContain(`The repository's object store is damaged at ${fx.head}`);
    expect(show.text).toMatch(/cycle/);
    const checkout = await call(c.client, 'git_checkout', { repo_path: fx.repo, branch_name: 'evil' });
    expect(checkout).toMatchObject({ isError: true });
    expect(checkout.text).toContain(`damaged at ${fx.head}`);
    // The healthy part of the repository still answers.
    expect(await call(c.client, 'git_log', { repo_path: fx.repo, max_count: 1 })).toMatchObject({ isError: false });
  });

  it('two ref-deltas on each other: damaged, for show, log and status', async () => {
    using fx = twoCommits();
    writePack(fx.gitdir, [
      { oid: fx.head, kind: 7, size: 4, zlib: deflateSync(delta(10, 1)), base: fx.tree },
      { oid: fx.tree, kind: 7, size: 4, zlib: deflateSync(delta(10, 1)), base: fx.head },
    ]);
    dropLoose(fx.gitdir, fx.head);
    dropLoose(fx.gitdir, fx.tree);
    await using c = await connect({ repositories: [fx.repo] });
    for (const tool of ['git_show', 'git_log', 'git_status'] as const) {
      const res = await call(c.client, tool, { repo_path: fx.repo, ...(tool === 'git_show' ? { revision: 'HEAD' } : {}) });
      expect(res, tool).toMatchObject({ isError: true });
      expect(res.text, tool).toMatch(/object store is damaged at [0-9a-f]{40}.*cycle/);
    }
  });

  it('a loose blob whose header says 10 bytes but inflates to 64 MiB: refused at 10 bytes, memory stays bounded', async () => {
    using fx = twoCommits();
    writeLoose(fx.gitdir, fx.blob, 'blob', 10, zeros(64 * MiB));
    await using c = await connect({ repositories: [fx.repo] });
    const before = process.memoryUsage().rss;
    for (const [tool, args] of [
      ['git_show', { revision: 'HEAD' }],
      ['git_blame', { file: 'big.txt' }],
    ] as const) {
      const res = await call(c.client, tool, { repo_path: fx.repo, ...args });
      expect(res, tool).toMatchObject({ isError: true });
      expect(res.text, tool).toContain(`damaged at ${fx.blob}`);
      expect(res.text, tool).toMatch(/more than the 10 bytes its header declares/);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * MiB);
  });

  it('a loose blob whose file fits its declared 1 MiB but inflates to 64 MiB: inflation stops at the declared size', async () => {
    using fx = twoCommits();
    writeLoose(fx.gitdir, fx.blob, 'blob', MiB, zeros(64 * MiB));
    await using c = await connect({ repositories: [fx.repo] });
    const before = process.memoryUsage().rss;
    const res = await call(c.client, 'git_show', { repo_path: fx.repo, revision: 'HEAD' });
    expect(res).toMatchObject({ isError: true });
    expect(res.text).toContain(`damaged at ${fx.blob}: it inflates to more than the 1048576 bytes its header declares`);
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * MiB);
  });

  it('a packed blob whose header says 10 bytes but inflates to 64 MiB: refused the same way', async () => {
    using fx = twoCommits();
    writePack(fx.gitdir, [{ oid: fx.blob, kind: 3, size: 10, zlib: deflateSync(zeros(64 * MiB)) }]);
    dropLoose(fx.gitdir, fx.blob);
    await using c = await connect({ repositories: [fx.repo] });
    const before = process.memoryUsage().rss;
    const res = await call(c.client, 'git_show', { repo_path: fx.repo, revision: 'HEAD' });
    expect(res).toMatchObject({ isError: true });
    expect(res.text).toContain(`damaged at ${fx.blob}`);
    expect(res.text).toMatch(/more than the 10 bytes its header declares/);
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * MiB);
  });

  it('an honest blob over --max-object-size is refused before it is read (show, blame), loose and packed', async () => {
    using fx = twoCommits('y'.repeat(2 * MiB));
    await using c = await connect({ repositories: [fx.repo], objectLimits: { maxObjectSize: MiB } });
    const expected = `blob ${fx.blob} is 2097152 bytes, over --max-object-size (1 MiB)`;
    for (const packed of [false, true]) {
      if (packed) packAll(fx);
      for (const [tool, args] of [
        ['git_show', { revision: 'HEAD' }],
        ['git_blame', { file: 'big.txt' }],
      ] as const) {
        const res = await call(c.client, tool, { repo_path: fx.repo, ...args });
        expect(res, `${tool} packed=${packed}`).toMatchObject({ isError: true });
        expect(res.text, tool).toContain(expected);
      }
    }
  });

  it('doubling deltas: refused once a result would pass --max-object-size, before it is built', async () => {
    using fx = twoCommits();
    const entries: PackEntry[] = [{ oid: fakeOid(), kind: 3, size: 100, zlib: deflateSync(Buffer.alloc(100, 0x61)) }];
    let size = 100;
    for (let i = 0; i < 16; i++) {
      const d = delta(size, 2);
      entries.push({ oid: i === 15 ? fx.blob : fakeOid(), kind: 6, size: d.length, zlib: deflateSync(d), base: i });
      size *= 2;
    }
    writePack(fx.gitdir, entries);
    dropLoose(fx.gitdir, fx.blob);
    await using c = await connect({ repositories: [fx.repo], objectLimits: { maxObjectSize: MiB } });
    const res = await call(c.client, 'git_show', { repo_path: fx.repo, revision: 'HEAD' });
    expect(res).toMatchObject({ isError: true });
    expect(res.text).toMatch(new RegExp(`blob ${fx.blob} is (built from a delta base of )?\\d+ bytes, over --max-object-size \\(1 MiB\\)`));
  });

  it('a 9,000-deep delta chain: refused past --max-delta-depth, without applying a delta', async () => {
    using fx = twoCommits();
    const entries: PackEntry[] = [{ oid: fakeOid(), kind: 3, size: 1024, zlib: deflateSync(Buffer.alloc(1024, 0x61)) }];
    let size = 1024;
    for (let i = 0; i < 9000; i++) {
      const d = delta(size, 1, Buffer.from('b'));
      entries.push({ oid: i === 8999 ? fx.blob : fakeOid(), kind: 6, size: d.length, zlib: deflateSync(d), base: i });
      size += 1;
    }
    writePack(fx.gitdir, entries);
    dropLoose(fx.gitdir, fx.blob);
    await using c = await connect({ repositories: [fx.repo] });
    const res = await call(c.client, 'git_show', { repo_path: fx.repo, revision: 'HEAD' });
    expect(res).toMatchObject({ isError: true });
    expect(res.text).toContain(`the delta chain of ${fx.blob} is deeper than --max-delta-depth (4095)`);
  });

  it('a chain within the depth cap that inflates more than --max-inflate-bytes in one call is stopped there', async () => {
    using fx = twoCommits();
    const entries: PackEntry[] = [{ oid: fakeOid(), kind: 3, size: 65536, zlib: deflateSync(Buffer.alloc(65536, 0x61)) }];
    let size = 65536;
    for (let i = 0; i < 200; i++) {
      const d = delta(size, 1, Buffer.from('b'));
      entries.push({ oid: i === 199 ? fx.blob : fakeOid(), kind: 6, size: d.length, zlib: deflateSync(d), base: i });
      size += 1;
    }
    writePack(fx.gitdir, entries);
    dropLoose(fx.gitdir, fx.blob);
    await using c = await connect({ repositories: [fx.repo], objectLimits: { maxInflateBytes: 4 * MiB } });
    const res = await call(c.client, 'git_show', { repo_path: fx.repo, revision: 'HEAD' });
    expect(res).toMatchObject({ isError: true });
    expect(res.text).toContain('over --max-inflate-bytes (4 MiB) in one call');
    // Another call has a budget of its own: the healthy commit still shows.
    expect(await call(c.client, 'git_show', { repo_path: fx.repo, revision: 'HEAD~1' })).toMatchObject({ isError: false });
  });
});
