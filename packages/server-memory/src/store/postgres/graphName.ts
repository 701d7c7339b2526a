/** Named graphs of the PostgreSQL store: every row carries its graph's name. */

export const DEFAULT_GRAPH = 'default';

/** Why `name` cannot name a graph (1-200 characters, no NUL), or undefined when it can. */
export function checkGraphName(name: string): string | undefined {
  if (name.length === 0 || name.length > 200) return 'a graph name has 1 to 200 characters';
  if (name.includes('\u0000')) return 'a graph name cannot contain NUL';
  return undefined;
}

/** The graph of one user under `--graph-per-user`: `<graph>/user:<key>`, `key` being `userGraphKey(subject)`. */
export function userGraphName(graph: string, key: string): string {
  return `${graph}/user:${key}`;
}
