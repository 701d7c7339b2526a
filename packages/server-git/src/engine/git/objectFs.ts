/**
 * The fs isomorphic-git is given, with the repository's objects served by this server's own reader
 * (objectStore.ts) so that isomorphic-git never parses a pack, an .idx or a loose file itself: its reads
 * of `objects/xx/yyyy…` are answered from the call's ObjectStore (as a zlib stream stored without
 * compression, which it inflates and checks against the oid as it does any loose object), and
 * `objects/pack` lists empty to it. So a damaged pack or a delta bomb met through git.walk, checkout,
 * merge or statusMatrix is judged by the same checks and limits as every other read, and their errors
 * (ObjectStoreDamaged, ObjectLimitExceeded) reach the tool's answer as they are. Writes are untouched:
 * isomorphic-git still writes loose objects and fetched packs where git would.
 */
import { resolve, sep } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { ConfinedFs } from './confinedFs.js';
import type { ObjectStore } from './objectStore.js';

type Op = (...args: unknown[]) => Promise<unknown>;

function notFound(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such object: '${file}'`), { code: 'ENOENT', path: file });
}

/** `fs` with the object reads of the git dir `gitdir` answered from `objects`. */
export function withObjectStore(fs: ConfinedFs, gitdir: string, objects: ObjectStore): ConfinedFs {
  const objectsDir = resolve(gitdir, 'objects') + sep;
  const packDir = resolve(gitdir, 'objects', 'pack');
  const inner = fs.promises as unknown as Record<string, Op>;
  /** The oid whose loose file `file` is, or null for any other path. */
  const looseOid = (file: string): string | null => {
    const abs = resolve(file);
    if (!abs.startsWith(objectsDir)) return null;
    const m = /^([0-9a-f]{2})[\\/]([0-9a-f]{38})$/.exec(abs.slice(objectsDir.length));
    return m ? m[1]! + m[2]! : null;
  };
  const promises: Record<string, unknown> = { ...inner };
  promises.readFile = async (file: unknown, ...rest: unknown[]) => {
    const oid = typeof file === 'string' ? looseOid(file) : null;
    if (oid === null) return inner.readFile!(file, ...rest);
    const raw = objects.read(oid);
    if (!raw) throw notFound(String(file));
    return deflateSync(Buffer.concat([Buffer.from(`${raw.type} ${raw.data.length}\0`, 'latin1'), raw.data]), { level: 0 });
  };
  promises.readdir = async (file: unknown, ...rest: unknown[]) =>
    typeof file === 'string' && resolve(file) === packDir ? [] : inner.readdir!(file, ...rest);
  return { promises: promises as unknown as ConfinedFs['promises'] };
}
