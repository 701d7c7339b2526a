import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError } from '@mcpkit/protocol-core';

/**
 * `--repository` paths, checked once at start: each must exist and be a folder; the real path is
 * kept (so later checks compare real paths). A folder need not be a repository itself: a folder of
 * repositories allows each of them (and `git_init` inside it, with --allow-init).
 */
export async function resolveStartupRepositories(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const given of paths) {
    let real: string;
    try {
      real = await realpath(resolve(given));
    } catch {
      throw new ConfigError(`--repository ${given}: no such folder`, '--repository');
    }
    if (!(await stat(real)).isDirectory()) throw new ConfigError(`--repository ${given}: not a folder`, '--repository');
    out.push(real);
  }
  return out;
}
