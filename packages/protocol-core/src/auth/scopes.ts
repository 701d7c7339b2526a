/**
 * Scopes to requests. A server declares the scope each tool needs (`{ tools: { create_entities:
 * 'memory:write' } }`) and the scope that reading its resources and prompts needs (`resources:
 * 'memory:read'`); the operator's `--oauth-scope-map` renames them to the authorization server's names.
 * What is checked: `tools/call` (the tool's scopes); `resources/list`, `resources/read`,
 * `resources/subscribe` and 2026 `subscriptions/listen` (the resource scopes: a listing may carry
 * contents, a listen stream carries resource updates); `prompts/get` (the prompt scopes); and
 * `completion/complete` (the scopes of what it completes). `tools/list`, `prompts/list`,
 * `resources/templates/list` and everything else need no scope beyond a valid token.
 */
import { ConfigError } from '../errors.js';

type Scopes = string | readonly string[];

export interface ScopeDeclaration {
  /** Tool name → the scope (or all of the scopes) a call needs. */
  tools?: Readonly<Record<string, Scopes>>;
  /** What a call to a tool not listed in `tools` needs; nothing when absent. */
  defaultTool?: Scopes;
  /** What reading the server's resources needs (list, read, subscribe, 2026 listen streams); nothing when absent. */
  resources?: Scopes;
  /** What getting one of the server's prompts needs; nothing when absent. */
  prompts?: Scopes;
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

const list = (value: Scopes | undefined): readonly string[] => (value === undefined ? [] : typeof value === 'string' ? [value] : value);

const RESOURCE_METHODS = new Set(['resources/list', 'resources/read', 'resources/subscribe', 'subscriptions/listen']);

type Need = { kind: 'tool'; name: string } | { kind: 'resources' } | { kind: 'prompts' };

/** What a request asks for, as far as scopes go; `undefined` for a message that needs no scope. */
function need(message: unknown): Need | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (typeof method !== 'string') return undefined;
  if (method === 'tools/call') {
    const name = (params as { name?: unknown } | undefined)?.name;
    return { kind: 'tool', name: typeof name === 'string' ? name : '' };
  }
  if (RESOURCE_METHODS.has(method)) return { kind: 'resources' };
  if (method === 'prompts/get') return { kind: 'prompts' };
  if (method === 'completion/complete') {
    const type = (params as { ref?: { type?: unknown } } | undefined)?.ref?.type;
    return type === 'ref/resource' ? { kind: 'resources' } : type === 'ref/prompt' ? { kind: 'prompts' } : undefined;
  }
  return undefined;
}

export function createScopePolicy(declaration: ScopeDeclaration, scopeMap: Readonly<Record<string, string>> = {}): ScopePolicy {
  const declared = new Set([
    ...Object.values(declaration.tools ?? {}).flatMap(list),
    ...list(declaration.defaultTool),
    ...list(declaration.resources),
    ...list(declaration.prompts),
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
  const resources = list(declaration.resources).map(rename);
  const prompts = list(declaration.prompts).map(rename);

  function scopesOf(wanted: Need): readonly string[] {
    if (wanted.kind === 'tool') return tools.get(wanted.name) ?? fallback;
    return wanted.kind === 'resources' ? resources : prompts;
  }

  function required(message: unknown): string[] {
    const messages = Array.isArray(message) ? message : [message];
    const needed = new Set<string>();
    for (const m of messages) {
      const wanted = need(m);
      if (wanted) for (const scope of scopesOf(wanted)) needed.add(scope);
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
