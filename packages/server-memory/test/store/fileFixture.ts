/** What the file-store tests share: a temp folder with a memory file and the stores opened on it, a log capture, a sample graph. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@mcpkit/protocol-core';
import { type FileStoreOptions, type GraphStore, openFileStore } from '../../src/server.js';
import { tempDir } from '../helpers.js';

export function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) }) };
}

/** A temp folder with `memory.jsonl` and stores opened on it, all closed and removed on dispose. */
export async function fixture(options: Partial<FileStoreOptions> = {}, files: Record<string, string> = {}) {
  const dir = tempDir();
  const path = join(dir.path, 'memory.jsonl');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir.path, name), text);
  const opened: GraphStore[] = [];
  const open = async (more: Partial<FileStoreOptions> = {}) => {
    const store = await openFileStore({ path, compactDelayMs: 60_000, lockStaleMs: 2000, ...options, ...more });
    opened.push(store);
    return store;
  };
  const store = await open();
  return {
    dir: dir.path,
    path,
    store,
    open,
    reopen: () => open(),
    text: () => readFileSync(path, 'utf8'),
    async [Symbol.asyncDispose]() {
      for (const s of opened) await s.close();
      dir[Symbol.dispose]();
    },
  };
}

export const sample = {
  entities: [
    { name: 'Alice', entityType: 'person', observations: ['likes tea'] },
    { name: 'Bob', entityType: 'person', observations: [] },
  ],
  relations: [{ from: 'Alice', to: 'Bob', relationType: 'knows' }],
};
