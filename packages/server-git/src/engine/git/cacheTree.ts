/**
 * The index's cache-tree extension (`TREE`), which git writes with the index (commit, add, reset, …):
 * for each folder the oid of the tree the index's entries under it make, and how many entries that is,
 * or "invalid" once an entry under it changed. A folder whose recorded tree equals a commit's subtree
 * holds no staged change: comparisons skip its entries without reading that subtree (as git's
 * unpack_trees does). Only valid folders are kept; an extension that does not parse is ignored.
 */

/** A valid folder's tree: its oid and the number of index entries under it. */
interface CachedTree {
  oid: string;
  count: number;
}

/** Folder path ('' for the root, else `a/b`) → its tree, for the valid folders of a `TREE` extension's data. */
export type CacheTree = Map<string, CachedTree>;

/** Parses the data of a `TREE` extension (`buf[start, end)`); undefined when damaged. */
export function parseCacheTree(buf: Buffer, start: number, end: number): CacheTree | undefined {
  const out: CacheTree = new Map();
  let pos = start;
  // Pre-order: name NUL, entry count (-1: invalid) SP, subtree count LF, the oid when valid; then the subtrees.
  const entry = (prefix: string | null): boolean => {
    const nul = buf.indexOf(0, pos);
    if (nul < 0 || nul >= end) return false;
    const name = buf.toString('utf8', pos, nul);
    const lf = buf.indexOf(0x0a, nul + 1);
    if (lf < 0 || lf >= end) return false;
    const [countText, subText] = buf.toString('latin1', nul + 1, lf).split(' ');
    const count = Number(countText);
    const subtrees = Number(subText);
    if (!Number.isInteger(count) || !Number.isInteger(subtrees) || subtrees < 0) return false;
    pos = lf + 1;
    const path = prefix === null ? '' : prefix === '' ? name : `${prefix}/${name}`;
    if (count >= 0) {
      if (pos + 20 > end) return false;
      out.set(path, { oid: buf.toString('hex', pos, pos + 20), count });
      pos += 20;
    }
    for (let i = 0; i < subtrees; i++) if (!entry(path)) return false;
    return true;
  };
  return entry(null) ? out : undefined;
}
