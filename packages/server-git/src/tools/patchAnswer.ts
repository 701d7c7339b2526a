/** How the diff tools and git_show answer with one page of a patch: its text, the notice of a next page, the files as data. */
import { structuredResult } from '@mcpkit/protocol-core';
import type { DiffPage } from '../engine/diff/diffTool.js';
import type { Paged } from '../engine/diff/paging.js';

/** The notice appended to a truncated page. */
function truncationNotice(page: Paged): string {
  return `\n\n[Output truncated: bytes ${page.start}-${page.end} of ${page.total}. Call again with the same arguments and cursor "${page.next_cursor}" for the rest.]`;
}

/** The page's text, with a notice after a truncated one. */
export function pageText(page: Paged): string {
  return page.text + (page.truncated ? truncationNotice(page) : '');
}

/** Paging fields of the structured answer. */
export function pageFields(page: Paged): { truncated: boolean; next_cursor?: string } {
  return { truncated: page.truncated, ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) };
}

/** `<title>:\n<git diff output without its last newline>` (`<title> (continued):` on a later page), paged, with the files as data. */
export function diffAnswer(title: string, { files, page }: DiffPage) {
  const heading = page.start === 0 ? `${title}:\n` : `${title} (continued):\n`;
  return structuredResult({ files, ...pageFields(page) }, heading + pageText(page));
}
