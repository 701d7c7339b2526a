import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR_NAME, defaultMemoryPath, type PathEnvironment, platformDataDir, resolveMemoryPath } from '../src/paths.js';
import { tempDir } from './helpers.js';

const linux = (over: Partial<PathEnvironment> = {}): PathEnvironment => ({
  cwd: '/work/project',
  home: '/home/ada',
  platform: 'linux',
  env: {},
  ...over,
});

function messages() {
  const lines: string[] = [];
  return { lines, logger: { info: (m: string) => lines.push(m) } };
}

describe('memory file location (upstream file-path.test.ts, §6.7)', () => {
  it('1. an absolute MEMORY_FILE_PATH is used as is', () => {
    expect(resolveMemoryPath(undefined, linux({ env: { MEMORY_FILE_PATH: '/tmp/custom-memory.jsonl' } }))).toEqual({
      path: '/tmp/custom-memory.jsonl',
      source: 'env',
    });
  });

  it('2. a relative MEMORY_FILE_PATH is resolved against the working directory (reference: its install folder)', () => {
    const { path } = resolveMemoryPath(undefined, linux({ env: { MEMORY_FILE_PATH: 'custom-memory.jsonl' } }));
    expect(path).toBe('/work/project/custom-memory.jsonl');
    expect(isAbsolute(path)).toBe(true);
  });

  it('3. a Windows path is absolute on Windows and resolved to an absolute path elsewhere', () => {
    const { path } = resolveMemoryPath(undefined, linux({ env: { MEMORY_FILE_PATH: 'C:\\temp\\memory.jsonl' } }));
    expect(isAbsolute(path)).toBe(true);
    // On Windows it is taken as is; elsewhere it is one relative file name, taken from the working directory.
    expect(path).toBe(process.platform === 'win32' ? 'C:\\temp\\memory.jsonl' : '/work/project/C:\\temp\\memory.jsonl');
  });

  it('4, 8, 9. without configuration: memory.jsonl in the data folder, absolute', () => {
    using dir = tempDir();
    const where = linux({ env: { XDG_DATA_HOME: dir.path } });
    const { path, source } = resolveMemoryPath(undefined, where);
    expect(source).toBe('default');
    expect(path).toBe(defaultMemoryPath(where));
    expect(path).toBe(join(dir.path, DATA_DIR_NAME, 'memory.jsonl'));
    expect(isAbsolute(path)).toBe(true);
  });

  it('5, 7. a legacy memory.json alone is renamed to memory.jsonl byte for byte, with the reference messages', () => {
    using dir = tempDir();
    const where = linux({ env: { XDG_DATA_HOME: dir.path } });
    const folder = join(dir.path, DATA_DIR_NAME);
    mkdirSync(folder);
    const content = '{"entities": [{"name": "test", "type": "person"}]}';
    writeFileSync(join(folder, 'memory.json'), content);
    const { lines, logger } = messages();
    const { path } = resolveMemoryPath(undefined, where, logger);
    expect(existsSync(join(folder, 'memory.json'))).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(content);
    expect(lines.join('\n')).toContain('DETECTED: Found legacy memory.json file');
    expect(lines.join('\n')).toContain('COMPLETED: Successfully migrated');
  });

  it('6. with both files, nothing moves and nothing is printed', () => {
    using dir = tempDir();
    const where = linux({ env: { XDG_DATA_HOME: dir.path } });
    const folder = join(dir.path, DATA_DIR_NAME);
    mkdirSync(folder);
    writeFileSync(join(folder, 'memory.json'), '{"test":"data"}');
    writeFileSync(join(folder, 'memory.jsonl'), '');
    const { lines, logger } = messages();
    resolveMemoryPath(undefined, where, logger);
    expect(existsSync(join(folder, 'memory.json'))).toBe(true);
    expect(existsSync(join(folder, 'memory.jsonl'))).toBe(true);
    expect(lines).toEqual([]);
  });

  it('no migration for a configured path (as the reference)', () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, 'memory.json'), 'x');
    const { lines, logger } = messages();
    resolveMemoryPath(undefined, linux({ env: { MEMORY_FILE_PATH: join(dir.path, 'memory.jsonl') } }), logger);
    expect(existsSync(join(dir.path, 'memory.json'))).toBe(true);
    expect(lines).toEqual([]);
  });
});

describe('memory file location (mcpkit)', () => {
  it('--memory-path wins over MEMORY_FILE_PATH; an empty MEMORY_FILE_PATH counts as unset', () => {
    expect(resolveMemoryPath('/a/flag.jsonl', linux({ env: { MEMORY_FILE_PATH: '/b/env.jsonl' } }))).toEqual({
      path: '/a/flag.jsonl',
      source: 'flag',
    });
    expect(resolveMemoryPath(undefined, linux({ env: { MEMORY_FILE_PATH: '', XDG_DATA_HOME: '/nowhere' } })).source).toBe('default');
  });

  it('expands ~ and normalises', () => {
    expect(resolveMemoryPath('~/notes/memory.jsonl', linux()).path).toBe('/home/ada/notes/memory.jsonl');
    expect(resolveMemoryPath('~', linux()).path).toBe('/home/ada');
    expect(resolveMemoryPath('../shared/./m.jsonl', linux()).path).toBe('/work/shared/m.jsonl');
    expect(resolveMemoryPath('~other/m.jsonl', linux()).path).toBe('/work/project/~other/m.jsonl');
  });

  it('uses the platform data folder, never the package folder', () => {
    expect(platformDataDir(linux())).toBe('/home/ada/.local/share');
    expect(platformDataDir(linux({ env: { XDG_DATA_HOME: '/data' } }))).toBe('/data');
    expect(platformDataDir(linux({ env: { XDG_DATA_HOME: 'relative/ignored' } }))).toBe('/home/ada/.local/share');
    expect(platformDataDir(linux({ platform: 'darwin' }))).toBe('/home/ada/Library/Application Support');
    expect(platformDataDir(linux({ platform: 'win32', home: '/home/ada', env: {} }))).toBe(join('/home/ada', 'AppData', 'Roaming'));
    expect(defaultMemoryPath(linux())).not.toContain('node_modules');
  });
});
