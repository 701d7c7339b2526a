/**
 * Scopes to tools. A server declares the scope each tool needs (`{ tools: { create_entities:
 * 'memory:write' } }`); the operator's `--oauth-scope-map` renames them to the authorization server's
 * names. Only calling is checked: `tools/list` and everything else need no scope beyond a valid token.
 */
import { ConfigError } from '../errors.js';

export interface ScopeDeclaration {
  /** Tool name → the scope (or all of the scopes) a call needs. */
  tools?: Readonly<Record<string, string | readonly string[]>>;
  /** What a call to a tool not listed in `tools` needs; nothing when absent. */
  defaultTool?: string | readonly string[];
  /** Further scopes to advertise in the metadata (`scopes_supported`). */
  extra?: readonly string[];
}

export interface ScopePolicy {
  /** Every scope (renamed), for `scopes_supported`. */
  readonly supported: readonly string[];
  /** The scopes a parsed JSON-RPC message or batch needs. */
  required(message: unknown): string[];
  /** The scopes `message` needs that `granted` lacks; empty when the call may go ahead. */
  missing(message: unknown, granted: readonly string[]): string[];
}

const list = (value: string | readonly string[] | undefined): readonly string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : value;

function toolCallName(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'tools/call') return undefined;
  const name = (params as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
}

export function createScopePolicy(declaration: ScopeDeclaration, scopeMap: Readonly<Record<string, string>> = {}): ScopePolicy {
  const declared = new Set([
    ...Object.values(declaration.tools ?? {}).flatMap(list),
    ...list(declaration.defaultTool),
    ...(declaration.extra ?? []),
  ]);
  for (const from of Object.keys(scopeMap))
    if (!declared.has(from))
      throw new ConfigError(
        `--oauth-scope-map renames "${from}", which this server does not use (its scopes: ${[...declared].join(', ') || 'none'})`,
        '--oauth-scope-map',
      );
  const rename = (scope: string) => scopeMap[scope] ?? scope;
  const tools = new Map(Object.entries(declaration.tools ?? {}).map(([tool, scopes]) => [tool, list(scopes).map(rename)]));
  const fallback = list(declaration.defaultTool).map(rename);

  function required(message: unknown): string[] {
    const messages = Array.isArray(message) ? message : [message];
    const needed = new Set<string>();
    for (const m of messages) {
      const tool = toolCallName(m);
      if (tool === undefined) continue;
      for (const scope of tools.get(tool) ?? fallback) needed.add(scope);
    }
    return [...needed];
  }

  return {
    supported: Object.freeze([...new Set([...declared].map(rename))]),
    required,
    missing(message, granted) {
      const have = new Set(granted);
      return required(message).filter((scope) => !have.has(scope));
    },
  };
}
