/**
 * One abbreviated object name, as git prints it (core.abbrev, else its "auto" length for the
 * repository's size, longer while another object shares the prefix). For many names in one answer,
 * use `createAbbreviator` from ../diff/abbrev.ts directly (it reads loose-object folders once).
 */
import { createAbbreviator } from '../diff/abbrev.js';
import type { Repo } from '../repo.js';

export async function abbreviate(repo: Repo, oid: string): Promise<string> {
  const abbreviator = await createAbbreviator(repo);
  await abbreviator.prefetch([oid]);
  return abbreviator.abbrev(oid);
}
