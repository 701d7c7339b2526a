/**
 * Finding tools by words: a query is split into terms, and each tool is scored by where the terms
 * appear (its name counts most, then its title, then its description). No embeddings, no index:
 * a few hundred tools are scored in well under a millisecond.
 */
import type { ToolEntry } from '../mcp/types.js';

/** Lower-case words of `text`: split on anything not a letter or digit, and on camelCase humps. */
function searchTerms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term.length > 0);
}

/** How well `tool` matches `terms` (0: not at all). */
function score(tool: ToolEntry, terms: readonly string[]): number {
  const name = tool.name.toLowerCase();
  const nameTerms = new Set(searchTerms(`${tool.server} ${tool.tool}`));
  const title = tool.title?.toLowerCase() ?? '';
  const description = tool.description.toLowerCase();
  let total = 0;
  for (const term of terms) {
    if (nameTerms.has(term)) total += 6;
    else if (name.includes(term)) total += 4;
    if (title.includes(term)) total += 3;
    if (description.includes(term)) total += 1;
  }
  return total;
}

/**
 * The tools matching `query`, best first (ties keep the router's order), at most `limit`. A query
 * that is a tool's name (namespaced or the server's own) returns just the tools of that name.
 */
export function searchTools(tools: readonly ToolEntry[], query: string, limit: number): ToolEntry[] {
  const terms = searchTerms(query);
  const whole = query.trim().toLowerCase();
  const exact = tools.filter((tool) => tool.name.toLowerCase() === whole || tool.tool.toLowerCase() === whole);
  if (exact.length > 0) return exact.slice(0, limit);
  return tools
    .map((tool, index) => ({ tool, index, score: score(tool, terms) }))
    .filter((match) => match.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((match) => match.tool);
}
