import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('mcp-server-sequential-thinking (built bin over stdio)', () => {
  it('answers tools/list and tools/call and draws the thought on stderr', async () => {
    await using proc = await spawnStdio(bin);
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'sequential-thinking-server' });
    const { tools } = await proc.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['sequentialthinking']);
    const res = await proc.client.callTool({
      name: 'sequentialthinking',
      arguments: { thought: 'Plan the work', thoughtNumber: '1', totalThoughts: '2', nextThoughtNeeded: 'true' },
    });
    expect(res.structuredContent).toEqual({
      thoughtNumber: 1,
      totalThoughts: 2,
      nextThoughtNeeded: true,
      branches: [],
      thoughtHistoryLength: 1,
    });
    // The thought is drawn once the call is answered (its formatter loads on first use): wait on stderr, not a clock.
    await expect.poll(() => proc.stderr()).toContain('│ Plan the work');
  });

  it('honours DISABLE_THOUGHT_LOGGING and --max-history', async () => {
    await using proc = await spawnStdio(bin, { args: ['--max-history', '2'], env: { DISABLE_THOUGHT_LOGGING: 'true' } });
    let last: unknown;
    for (let i = 1; i <= 4; i++) {
      last = (
        await proc.client.callTool({
          name: 'sequentialthinking',
          arguments: { thought: `t${i}`, thoughtNumber: i, totalThoughts: 4, nextThoughtNeeded: i < 4 },
        })
      ).structuredContent;
    }
    expect(last).toMatchObject({ thoughtHistoryLength: 2 });
    expect(proc.stderr()).not.toContain('│ t1');
  });

  it('takes the size limits from a flag and from the environment', async () => {
    await using proc = await spawnStdio(bin, {
      args: ['--max-thought-bytes', '1kb'],
      env: { SEQUENTIAL_THINKING_MAX_HISTORY_BYTES: '2kb', DISABLE_THOUGHT_LOGGING: 'true' },
    });
    const call = (thought: string, i: number) =>
      proc.client.callTool({
        name: 'sequentialthinking',
        arguments: { thought, thoughtNumber: i, totalThoughts: 4, nextThoughtNeeded: true },
      });
    const refused = await call('x'.repeat(1025), 1);
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toBe(
      'thought is 1025 bytes long (UTF-8); at most 1024 bytes (1 KiB) are allowed per thought. Nothing was recorded: split it into smaller thoughts.',
    );
    let last: unknown;
    for (let i = 1; i <= 3; i++) last = (await call('y'.repeat(1000), i)).structuredContent;
    expect(last).toMatchObject({ thoughtHistoryLength: 2 });
    const read = await proc.client.readResource({ uri: 'sequentialthinking://history' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ bytes: 2000, maxHistoryBytes: 2048, dropped: 1 });
  });

  it('lists the size limits in --help', async () => {
    const { code, stdout } = await runBin(bin, { args: ['--help'] });
    expect(code).toBe(0);
    expect(stdout).toContain('--max-history-bytes <size>');
    expect(stdout).toContain('env SEQUENTIAL_THINKING_MAX_HISTORY_BYTES; default 8mb');
    expect(stdout).toContain('--max-thought-bytes <size>');
    expect(stdout).toContain('env SEQUENTIAL_THINKING_MAX_THOUGHT_BYTES; default 128kb, at most --max-history-bytes');
  });

  it('rejects a bad size and a thought limit above the budget with exit 2 and one line', async () => {
    const bad = await runBin(bin, { args: ['--max-history-bytes', '12parsecs'] });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(
      'mcp-server-sequential-thinking: invalid value for --max-history-bytes: "12parsecs" is not a size (e.g. 10mb, 512k) (see mcp-server-sequential-thinking --help)\n',
    );
    const conflict = await runBin(bin, { args: ['--max-thought-bytes', '2mb'], env: { SEQUENTIAL_THINKING_MAX_HISTORY_BYTES: '1mb' } });
    expect(conflict.code).toBe(2);
    expect(conflict.stdout).toBe('');
    expect(conflict.stderr).toBe(
      'mcp-server-sequential-thinking: --max-thought-bytes (2 MiB) must not exceed SEQUENTIAL_THINKING_MAX_HISTORY_BYTES (1 MiB): a thought that large could never be kept\n',
    );
  });

  it('rejects a bad --max-history with exit 2', async () => {
    const { code, stdout, stderr } = await runBin(bin, { args: ['--max-history', '0'] });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(
      'mcp-server-sequential-thinking: invalid value for --max-history: 0 is out of range (1..1000000) (see mcp-server-sequential-thinking --help)',
    );
  });

  // Node >= 22.1 has module.enableCompileCache: the bin's loader turns it on (default folder: <tmpdir>/node-compile-cache).
  it.skipIf(typeof (module as { enableCompileCache?: unknown }).enableCompileCache !== 'function')(
    'uses the compile cache where the runtime has one',
    async () => {
      const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-compile-cache-'));
      try {
        const off = await runBin(bin, { args: ['--version'], env: { TMPDIR: tmp, NODE_DISABLE_COMPILE_CACHE: '1' } });
        expect(off.code).toBe(0);
        expect(readdirSync(tmp)).toEqual([]);
        const on = await runBin(bin, { args: ['--version'], env: { TMPDIR: tmp } });
        expect(on.code).toBe(0);
        expect(readdirSync(tmp)).toEqual(['node-compile-cache']);
        expect(readdirSync(join(tmp, 'node-compile-cache'), { recursive: true }).length).toBeGreaterThan(1);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
});
