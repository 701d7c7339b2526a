/**
 * What stays loaded per repository between calls: isomorphic-git's cache (pack indexes, parsed
 * objects) and this server's derived data (flattened trees, parsed index, …). One per server (or
 * shared by the CLI's sessions), handed to every call through the GitContext.
 */
export interface RepoCache {
  get(gitdir: string): { cache: object; memo: Map<string, unknown> };
  /** Forget everything kept for a repository (after a fetch adds packs). */
  drop(gitdir: string): void;
}

/** Caches for at most `max` repositories, least recently used dropped first. */
export function createRepoCache(max = 16): RepoCache {
  const entries = new Map<string, { cache: object; memo: Map<string, unknown> }>();
  return {
    get(gitdir) {
      let entry = entries.get(gitdir);
      if (entry) entries.delete(gitdir);
      else entry = { cache: {}, memo: new Map() };
      entries.set(gitdir, entry);
      while (entries.size > max) entries.delete(entries.keys().next().value as string);
      return entry;
    },
    drop(gitdir) {
      entries.delete(gitdir);
    },
  };
}
