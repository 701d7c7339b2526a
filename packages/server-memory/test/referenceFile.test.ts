import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createLogger } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { adoptReferenceFile, findReferenceFiles, npxCacheDirs } from '../src/referenceFile.js';
import { tempDir } from './helpers.js';

const line = (name: string) => `${JSON.stringify({ type: 'entity', name, entityType: 'thing', observations: [] })}\n`;

function referenceFile(npx: string, hash: string, name: 'memory.jsonl' | 'memory.json', content: string, mtime: number): string {
  const path = join(npx, hash, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  utimesSync(path, mtime, mtime);
  return path;
}

function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) }) };
}

describe("the reference's memory file in npx's cache", () => {
  it('looks in $npm_config_cache/_npx and the platform default', () => {
    const env = { npm_config_cache: '/opt/npm' };
    expect(npxCacheDirs({ cwd: '/', home: '/home/u', platform: 'linux', env })).toEqual(['/opt/npm/_npx', '/home/u/.npm/_npx']);
    expect(npxCacheDirs({ cwd: '/', home: '/home/u', platform: 'linux', env: { npm_config_cache: 'relative' } })).toEqual([
      '/home/u/.npm/_npx',
    ]);
    expect(npxCacheDirs({ cwd: '/', home: 'C:\\Users\\u', platform: 'win32', env: {} })[0]).toMatch(/npm-cache.+_npx$/);
  });

  it('copies the newest one to the default file once, byte for byte, and leaves every original alone', () => {
    using home = tempDir();
    const npx = join(home.path, '.npm', '_npx');
    const older = referenceFile(npx, 'aaaa', 'memory.json', line('Old'), 1_700_000_000);
    const newest = referenceFile(npx, 'bbbb', 'memory.jsonl', line('New'), 1_800_000_000);
    const where = { cwd: home.path, home: home.path, platform: 'linux' as const, env: {} };
    expect(findReferenceFiles(where).map((f) => f.path)).toEqual([newest, older]);

    const target = join(home.path, 'data', 'mcpkit-memory', 'memory.jsonl');
    const { lines, logger } = capture();
    expect(adoptReferenceFile(target, where, logger)?.path).toBe(newest);
    expect(readFileSync(target, 'utf8')).toBe(line('New'));
    expect(readFileSync(newest, 'utf8')).toBe(line('New'));
    expect(readFileSync(older, 'utf8')).toBe(line('Old'));
    expect(lines.join('')).toContain(`copied it to ${target}`);
    expect(lines.join('')).toContain(`1 older reference memory file(s) left alone in npx's cache: ${older}`);

    // Once our file exists it is ours: a later reference write is not copied over it.
    writeFileSync(newest, line('Later'));
    expect(adoptReferenceFile(target, where, logger)).toBeUndefined();
    expect(readFileSync(target, 'utf8')).toBe(line('New'));
  });

  it('follows no link and does nothing when the cache has no reference file', () => {
    using home = tempDir();
    const outside = join(home.path, 'outside.jsonl');
    writeFileSync(outside, line('Secret'));
    const dist = join(home.path, '.npm', '_npx', 'cccc', 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist');
    mkdirSync(dist, { recursive: true });
    symlinkSync(outside, join(dist, 'memory.jsonl'));
    const where = { cwd: home.path, home: home.path, platform: 'linux' as const, env: {} };
    const target = join(home.path, 'data', 'memory.jsonl');
    const { lines, logger } = capture();
    expect(adoptReferenceFile(target, where, logger)).toBeUndefined();
    expect(existsSync(target)).toBe(false);
    expect(lines).toEqual([]);
  });

  it('says how to use the file where it is when the copy fails, and leaves no partial file', () => {
    using home = tempDir();
    referenceFile(join(home.path, '.npm', '_npx'), 'dddd', 'memory.jsonl', line('A'), 1_800_000_000);
    const where = { cwd: home.path, home: home.path, platform: 'linux' as const, env: {} };
    // The target's folder is a file, so it cannot be created.
    writeFileSync(join(home.path, 'blocked'), '');
    const target = join(home.path, 'blocked', 'memory.jsonl');
    const { lines, logger } = capture();
    expect(adoptReferenceFile(target, where, logger)).toBeUndefined();
    expect(lines.join('')).toMatch(/could not copy it to .+; start with --memory-path .+memory\.jsonl to use it where it is/);
  });
});
