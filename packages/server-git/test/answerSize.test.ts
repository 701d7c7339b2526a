/** No answer outgrows what clients accept: max_bytes is at most 4 MiB, and tools that do not page cap with a notice. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, text, write } from './helpers.js';

const MiB = 1024 * 1024;

describe('answer sizes', () => {
  it('every max_bytes accepts at most 4 MiB', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const { tools } = await pair.client.listTools();
    const limits = tools
      .filter((t) => t.inputSchema.properties?.max_bytes)
      .map((t) => [t.name, (t.inputSchema.properties!.max_bytes as { maximum?: number }).maximum]);
    expect(limits.length).toBeGreaterThanOrEqual(5);
    for (const [name, maximum] of limits) expect(maximum, String(name)).toBe(4 * MiB);
    const res = await pair.client
      .callTool({ name: 'git_diff', arguments: { repo_path: fx.repo, target: 'HEAD', max_bytes: 64 * MiB } })
      .catch((e: Error) => ({ isError: true, content: [{ type: 'text', text: e.message }] }));
    expect(res.isError).toBe(true);
  });

  it.skipIf(!hasGit)('git_blame of a long file answers in parts that fit, continued with start_line', async () => {
    using fx = gitRepo();
    const lines = Array.from({ length: 60_000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`);
    write(fx.repo, { 'big.txt': `${lines.join('\n')}\n` });
    fx.git('add', 'big.txt');
    fx.git('commit', '-q', '-m', 'big');
    await using pair = await connect({ repositories: [fx.path] });
    const first = await pair.client.callTool({ name: 'git_blame', arguments: { repo_path: fx.repo, file: 'big.txt' } });
    expect(first.isError, text(first)).toBeFalsy();
    const out = text(first);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(2 * MiB + 200);
    const m = /\[Lines 1-(\d+) of 60000 shown \(answers are capped at \d+ bytes\): call again with start_line (\d+) for the rest\]$/.exec(
      out,
    );
    expect(m, out.slice(-300)).not.toBeNull();
    const shown = (first.structuredContent as { lines: unknown[] }).lines.length;
    expect(shown).toBe(Number(m![1]));
    const next = await pair.client.callTool({
      name: 'git_blame',
      arguments: { repo_path: fx.repo, file: 'big.txt', start_line: Number(m![2]) },
    });
    expect((next.structuredContent as { lines: { line: number }[] }).lines[0]!.line).toBe(shown + 1);
  });

  it.skipIf(!hasGit)(
    'git_status of a huge change set is capped with a notice, text and lists',
    async () => {
      using fx = gitRepo();
      const long = 'f'.repeat(180);
      for (let i = 0; i < 14_000; i++) writeFileSync(join(fx.repo, `${long}-${i}`), '');
      await using pair = await connect({ repositories: [fx.path] });
      const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
      expect(res.isError, text(res).slice(0, 200)).toBeFalsy();
      expect(Buffer.byteLength(text(res))).toBeLessThanOrEqual(2 * MiB + 300);
      expect(text(res)).toMatch(/\[Output capped at \d+ bytes: \d+ more lines not shown\. .*\]$/);
      expect(Buffer.byteLength(JSON.stringify(res.structuredContent))).toBeLessThanOrEqual(2 * MiB + 1000);
    },
    60_000,
  );
});
