/**
 * Which tools the model is offered at each step. When every tool's schema fits under the
 * threshold, all of them. Past it, the tools are deferred: the model gets `tool_search` (plus the
 * tools of servers configured `"defer": false`, and the tools it already found or used), and a
 * search loads the matching tools' schemas for the next step.
 */
import type { ToolEntry, ToolRouter } from '../mcp/types.js';
import { SKILL_TOOL_NAME, skillToolSpec } from '../skills/tool.js';
import type { Message, ToolSpec } from '../types.js';
import { estimateToolTokens } from './estimate.js';
import { searchTools } from './search.js';

/** The name of the search tool (a server's tools are `server__tool`, so it never clashes). */
export const TOOL_SEARCH_NAME = 'tool_search';
/** Assumed when the host does not say: OpenAI-compatible endpoints do not report the window. */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 32_768;
/** The share of the context window the tools may take before they are deferred. */
export const DEFAULT_DEFER_RATIO = 0.05;
/** Tools one search returns (and loads) at most, unless the model asks for fewer or more (≤ 20). */
export const DEFAULT_SEARCH_RESULTS = 5;
const MAX_SEARCH_RESULTS = 20;

export interface ToolSearchOptions {
  /** The model's context window (tokens). Default 32,768. */
  contextWindowTokens?: number;
  /** Defer once the tools' schemas are estimated above this (tokens). Default 5% of the window (the 2026 client guidance: 1-5%). */
  thresholdTokens?: number;
  /** Tools a search returns when the model gives no `limit`. Default 5. */
  maxResults?: number;
}

/** The tools of one step. */
export interface OfferedTools {
  tools: ToolSpec[];
  /** True when some tools are withheld behind `tool_search`. */
  deferred: boolean;
  /** Estimated tokens of every tool's schema (what an undeferred request would carry). */
  allTokens: number;
}

export interface ToolSearchResult {
  text: string;
  found: ToolEntry[];
}

/** One run's view of the tools: what was loaded by searches stays loaded for the run. */
export interface ToolOffer {
  next(): OfferedTools;
  /** Is `name` the search tool (and is deferral on)? */
  isSearch(name: string): boolean;
  /** Is `name` the `skill` tool (and do the servers publish skills)? */
  isSkill(name: string): boolean;
  /** Run a search (`args` as the model sent them) and load what it found. */
  search(args: Record<string, unknown>): ToolSearchResult;
}

/** The threshold in tokens for `options` (`false`: deferral off). */
export function deferThreshold(options: ToolSearchOptions | false | undefined): number {
  if (options === false) return Number.POSITIVE_INFINITY;
  if (options?.thresholdTokens !== undefined) return options.thresholdTokens;
  return Math.round((options?.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS) * DEFAULT_DEFER_RATIO);
}

function toSpec(tool: ToolEntry): ToolSpec {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

function searchSpec(tools: readonly ToolEntry[], hidden: number): ToolSpec {
  const servers = new Map<string, number>();
  for (const tool of tools) servers.set(tool.server, (servers.get(tool.server) ?? 0) + 1);
  const list = [...servers].map(([server, count]) => `${server} (${count})`).join(', ');
  return {
    name: TOOL_SEARCH_NAME,
    description:
      `Find tools by what they do. ${hidden} more tools are available but not shown, from these servers: ${list}. ` +
      'Search with a few words (or a tool name); the matching tools are listed and can be called in your next step.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words describing the tool you need, e.g. "create entities", or its name.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_SEARCH_RESULTS,
          description: `How many tools to return (default ${DEFAULT_SEARCH_RESULTS}).`,
        },
      },
      required: ['query'],
    },
  };
}

/** Tool names the conversation already called: they stay loaded (the model knows them). */
function usedTools(history: readonly Message[]): string[] {
  return history.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.name) : []));
}

export function createToolOffer(
  router: ToolRouter,
  options: ToolSearchOptions | false | undefined,
  history: readonly Message[],
): ToolOffer {
  const threshold = deferThreshold(options);
  const loaded = new Set<string>(usedTools(history));
  // The estimate is redone only when the router's list changes (it hands out the same array until then).
  let estimated: { list: readonly ToolEntry[]; tokens: number } | undefined;
  const estimate = (list: readonly ToolEntry[]): number => {
    if (estimated?.list !== list) estimated = { list, tokens: estimateToolTokens(list.map(toSpec)) };
    return estimated.tokens;
  };
  const maxResults = options === false ? DEFAULT_SEARCH_RESULTS : (options?.maxResults ?? DEFAULT_SEARCH_RESULTS);

  return {
    next() {
      const all = router.listTools();
      const allTokens = estimate(all);
      const skills = router.listSkills?.() ?? [];
      const skill = skills.length > 0 ? [skillToolSpec(skills)] : [];
      if (allTokens <= threshold) return { tools: [...skill, ...all.map(toSpec)], deferred: false, allTokens };
      const shown = all.filter((tool) => tool.defer === false || loaded.has(tool.name));
      return { tools: [searchSpec(all, all.length - shown.length), ...skill, ...shown.map(toSpec)], deferred: true, allTokens };
    },
    isSearch: (name) => name === TOOL_SEARCH_NAME && threshold !== Number.POSITIVE_INFINITY,
    isSkill: (name) => name === SKILL_TOOL_NAME && router.loadSkill !== undefined && (router.listSkills?.().length ?? 0) > 0,
    search(args) {
      const query = typeof args.query === 'string' ? args.query : '';
      if (query.trim() === '') return { text: 'Error: tool_search needs a "query" (a few words describing the tool).', found: [] };
      const asked = typeof args.limit === 'number' && Number.isInteger(args.limit) ? args.limit : maxResults;
      const limit = Math.min(Math.max(asked, 1), MAX_SEARCH_RESULTS);
      const all = router.listTools();
      const found = searchTools(all, query, limit);
      if (found.length === 0) {
        const servers = [...new Set(all.map((tool) => tool.server))].join(', ') || '(none)';
        return { text: `No tool matches "${query}". Try other words; the tools come from these servers: ${servers}.`, found };
      }
      for (const tool of found) loaded.add(tool.name);
      const lines = found.map(
        (tool) => `- ${tool.name}${tool.title ? ` (${tool.title})` : ''}: ${tool.description.split('\n')[0]?.slice(0, 200) ?? ''}`,
      );
      return { text: [`${found.length} tool(s) found; you can call them in your next step:`, ...lines].join('\n'), found };
    },
  };
}
