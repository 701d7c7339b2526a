/**
 * `mcp-server-memory import|export` as a user runs them (the built bin): exit codes, stderr lines,
 * stdout untouched. The successful runs use the run's throwaway PostgreSQL (the global setup in
 * test/postgres/globalSetup.ts, shared with the unit run); without one they are skipped, except under `CI`.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, runBin } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { postgresUrl } from './postgres/fixture.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const entityLine = (i: number) => JSON.stringify({ type: 'entity', name: `E${i}`, entityType: 'thing', observations: [`o"${i}"`, 'ü'] });

/** Exactly one line on stderr, matching `pattern`; nothing on stdout. */
function oneLine(run: { stdout: string; stderr: string }, pattern: RegExp): void {
  expect(run.stdout).toBe('');
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(pattern);
}

describe('mcp-server-memory import|export (built bin)', () => {
  it('--help lists the subcommands; each subcommand has its own --help', async () => {
    const main = await runBin(bin, { args: ['--help'] });
    expect(main.code).toBe(0);
    expect(main.stdout).toContain('mcp-server-memory import <file.jsonl>');
    expect(main.stdout).toContain('mcp-server-memory export <file.jsonl>');
    for (const command of ['import', 'export']) {
      const help = await runBin(bin, { args: [command, '--help'] });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: mcp-server-memory ${command} <file.jsonl> \\[options\\]`));
      expect(help.stdout).toContain('--database-url <url>');
      expect(help.stderr).toBe('');
    }
  });

  it('bad usage: exit 2, one stderr line, no password, nothing written', async () => {
    using dir = tempDir();
    const graphFile = join(dir.path, 'memory.jsonl');
    writeFileSync(graphFile, entityLine(1));
    const settings = join(dir.path, 'settings.json');
    writeFileSync(settings, '{\n  "a": 1\n}\n');
    const env = { MEMORY_DATABASE_URL: `postgres://u:topsecret@127.0.0.1:${await freePort()}/db` };
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['import'], env, /^mcp-server-memory import: import takes one file, got 0/],
      [['export', 'a.jsonl', 'b.jsonl'], env, /export takes one file, got 2/],
      [
        ['import', graphFile, '--bogus'],
        env,
        /^mcp-server-memory import: Unknown option '--bogus' \(see mcp-server-memory import --help\)\n$/,
      ],
      [['import', graphFile], {}, /import needs --database-url or MEMORY_DATABASE_URL/],
      [['import', graphFile, '--database-url', 'mysql://u:topsecret@h/x'], {}, /invalid value for --database-url/],
      [['import', graphFile, '--graph', ''], env, /a graph name has 1 to 200 characters/],
      [['import', graphFile, '--force'], env, /--force applies to export only/],
      [['import', join(dir.path, 'missing.jsonl')], env, /cannot read .*missing\.jsonl/],
      [['import', settings], env, /settings\.json is not a memory graph/],
      [['export', graphFile], env, /memory\.jsonl exists; nothing was written \(add --force to replace it\)/],
      [['export', join(dir.path, 'no-such-folder', 'x.jsonl')], env, /its folder .*no-such-folder does not exist/],
    ];
    for (const [args, caseEnv, pattern] of cases) {
      const run = await runBin(bin, { args, env: caseEnv });
      expect(run.code, args.join(' ')).toBe(2);
      oneLine(run, pattern);
      expect(run.stderr).not.toContain('topsecret');
    }
    expect(readFileSync(graphFile, 'utf8')).toBe(entityLine(1));
    expect(readdirSync(dir.path).sort()).toEqual(['memory.jsonl', 'settings.json']);
  });

  it('the database down: exit 1, one stderr line naming the failure, the password never shown, nothing written', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'memory.jsonl');
    writeFileSync(file, entityLine(1));
    const env = { MEMORY_DATABASE_URL: `postgres://memory:p%40ss-topsecret@127.0.0.1:${await freePort()}/memory` };
    const imported = await runBin(bin, { args: ['import', file], env });
    expect(imported.code).toBe(1);
    oneLine(
      imported,
      /^\[mcp-server-memory\] error: import failed \(graph "default" of postgres:\/\/memory:\*\*\*@127\.0\.0\.1:\d+\/memory\): .*ECONNREFUSED/,
    );
    const out = join(dir.path, 'out.jsonl');
    const exported = await runBin(bin, { args: ['export', out], env });
    expect(exported.code).toBe(1);
    oneLine(exported, /export failed .*ECONNREFUSED.*; nothing was written to/);
    for (const run of [imported, exported]) expect(run.stderr).not.toMatch(/topsecret|p%40ss|p@ss/);
    expect(readdirSync(dir.path)).toEqual(['memory.jsonl']);
  });

  describe('with a PostgreSQL', () => {
    const url = postgresUrl();

    it('imports with progress and a summary, keeps rejected lines aside, exports byte for byte, and repeats safely', async (ctx) => {
      if (!url) return ctx.skip('no PostgreSQL for this run');
      using dir = tempDir();
      const records = Array.from({ length: 12_000 }, (_, i) => entityLine(i));
      records.push(JSON.stringify({ type: 'relation', from: 'E1', to: 'E2', relationType: 'knows' }));
      const file = join(dir.path, 'memory.jsonl');
      writeFileSync(file, ['{"type":"marker"}', ...records, 'not json'].join('\n'));
      // A password the server ignores (trust on loopback), to show it never appears.
      const dbUrl = new URL(url);
      dbUrl.password = 'topsecret';
      const env = { MEMORY_DATABASE_URL: dbUrl.toString(), MEMORY_GRAPH: `stdio-${randomUUID()}` };

      const first = await runBin(bin, { args: ['import', file], env });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toBe('');
      const lines = first.stderr.trim().split('\n');
      expect(lines[0]).toMatch(/^\[mcp-server-memory\] info: import: 10,000 records done \(\d+\.\d MiB of \d+\.\d MiB\)$/);
      expect(lines[1]).toMatch(
        /warn: import: 2 lines not imported \(1 unreadable, 1 of another record type\): lines 1, 12003; kept verbatim in .*memory\.jsonl\.rejected/,
      );
      expect(lines[2]).toMatch(
        /info: imported .*memory\.jsonl into graph "stdio-.*" of postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres: 12,000 entities \(12,000 new, .*1 relations \(1 new, 0 already there\), 2 lines not imported/,
      );
      expect(lines).toHaveLength(3);
      expect(readFileSync(`${file}.rejected`, 'utf8')).toBe('{"type":"marker"}\nnot json\n');

      const again = await runBin(bin, { args: ['import', file, '--log-level', 'warn'], env });
      expect(again.code).toBe(0);
      expect(again.stderr.trim().split('\n')).toHaveLength(1); // the rejected lines, again

      const out = join(dir.path, 'out.jsonl');
      const exported = await runBin(bin, { args: ['export', out], env });
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toBe('');
      expect(exported.stderr).toMatch(
        /info: export: 10,000 of 12,001 records read\n.*info: exported graph "stdio-.*" of postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres to .*out\.jsonl: 12,000 entities, 1 relations/,
      );
      expect(readFileSync(out, 'utf8')).toBe(records.join('\n'));

      const refused = await runBin(bin, { args: ['export', out], env });
      expect(refused.code).toBe(2);
      oneLine(refused, /out\.jsonl exists; nothing was written \(add --force to replace it\)/);
      const forced = await runBin(bin, { args: ['export', out, '--force', '--log-level', 'warn'], env });
      expect(forced.code).toBe(0);
      expect(forced.stderr).toBe('');
      expect(readFileSync(out, 'utf8')).toBe(records.join('\n'));
      for (const run of [first, again, exported, refused, forced]) expect(run.stderr).not.toContain('topsecret');
      expect(existsSync(join(dir.path, 'out.jsonl.rejected'))).toBe(false);
    });
  });
});
