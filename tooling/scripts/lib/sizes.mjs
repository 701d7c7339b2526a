// Sizes on disk, as npm installed a folder, and for people.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a folder holds on disk as npm installed it: the sum of its regular files' sizes (apparent size,
 * symlinks not followed, directory entries not counted) and, for a node_modules folder, the same per
 * top-level package (`name` or `@scope/name`, its nested node_modules included).
 */
export function folderSize(dir) {
  let total = 0;
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return 0;
    }
    let sum = 0;
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) sum += walk(p);
      else if (e.isFile()) sum += statSync(p).size;
    }
    return sum;
  };
  const packages = new Map();
  for (const e of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
    const p = join(dir, e.name);
    if (!e.isDirectory()) {
      if (e.isFile()) total += statSync(p).size;
      continue;
    }
    if (e.name.startsWith('@')) {
      for (const s of readdirSync(p, { withFileTypes: true })) {
        const size = s.isDirectory() ? walk(join(p, s.name)) : s.isFile() ? statSync(join(p, s.name)).size : 0;
        if (s.isDirectory()) packages.set(`${e.name}/${s.name}`, size);
        total += size;
      }
    } else {
      const size = walk(p);
      if (!e.name.startsWith('.')) packages.set(e.name, size);
      total += size;
    }
  }
  return { total, packages };
}

/** A byte count for people: 930 KB, 14.2 MB (1 MB = 1,000,000 bytes, as npm and du --si print them). */
export function formatSize(bytes) {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} KB`;
  return `${bytes} B`;
}
