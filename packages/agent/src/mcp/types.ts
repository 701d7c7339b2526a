/**
 * The MCP side of the agent: configured servers, the tools they offer (namespaced), and the router
 * the tool-call pipeline calls through. `createRegistry` (registry.ts) implements `ToolRouter`.
 */
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/client';
import type { SkillSummary } from '../skills/tool.js';
import type { JsonSchema } from '../types.js';

export type ApprovalMode = 'allow' | 'deny' | 'ask';

/**
 * Which protocol era to speak with a server: `legacy` (the 2025-11-25 `initialize` handshake, the
 * default), `auto` (probe `server/discover`, fall back to `initialize`; the probe is bounded) or
 * `2026-07-28` (that revision or nothing).
 */
export type ProtocolMode = 'legacy' | 'auto' | '2026-07-28';

/** Per-server approval from the config: a default for the server and per-tool overrides. */
export interface ApprovalPolicy {
  /** Applies to every tool of the server without its own entry. Absent: decided by the agent's rules. */
  default?: ApprovalMode;
  /** Keyed by the server's own tool name (not the namespaced one). */
  tools: Record<string, ApprovalMode>;
  /**
   * `autoApproveReadOnly` in the config: false asks for this server's tools that say `readOnlyHint`
   * like for any other (a hint is the server's word, not a guarantee). Absent: the agent's setting.
   */
  autoAllowReadOnly?: boolean;
}

interface ServerConfigBase {
  /** The key in `mcpServers`. */
  name: string;
  approval: ApprovalPolicy;
  /** Per-call timeout for this server's tools (ms), overriding the agent's `--tool-timeout`. */
  timeoutMs?: number;
  /** The config's `protocol`; absent: the agent's default (`legacy` unless the host sets another). */
  protocol?: ProtocolMode;
  /** The config's `"defer": false`: offer this server's tools in full even when the others are deferred. */
  defer?: false;
}

export interface StdioServerConfig extends ServerConfigBase {
  kind: 'stdio';
  command: string;
  args: string[];
  /** Added to the agent's own environment (the SDK's safe default set) for the child. */
  env: Record<string, string>;
  cwd?: string;
}

/**
 * The config's `oauth` of an HTTP entry: a client registered with the authorization server
 * beforehand and/or a client ID metadata document. Without it the agent registers itself
 * dynamically when the server asks for a login.
 */
export interface HttpOAuthConfig {
  /** A pre-registered client's id (used before any other kind of registration). */
  clientId?: string;
  /** Its secret, for a confidential client (`${env:NAME}` in the config). */
  clientSecret?: string;
  /** Scopes to ask for beyond those the server names. */
  scopes?: string[];
  /** An https URL of this client's metadata document (used as the client id where the server supports it). */
  clientMetadataUrl?: string;
}

export interface HttpServerConfig extends ServerConfigBase {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
  /** `auto`: Streamable HTTP, falling back to legacy SSE when the server does not speak it. */
  transport: 'auto' | 'streamable-http' | 'sse';
  /** The config's `oauth`: how to log in where the server asks for it. */
  oauth?: HttpOAuthConfig;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** A tool as the agent knows it: namespaced for the model, routed to its server by the router. */
export interface ToolEntry {
  /** `server__tool`, only `[A-Za-z0-9_-]`, at most 64 characters (hash suffix on overflow). */
  name: string;
  server: string;
  /** The server's own tool name, sent in `tools/call`. */
  tool: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  annotations?: ToolAnnotations;
  /** `false`: its server is configured `"defer": false`, so it is always offered in full. */
  defer?: false;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Per-call timeout (ms), reset whenever the server reports progress. */
  timeoutMs?: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export interface ToolRouter {
  /** Every tool of every connected server, in config order then server order. */
  listTools(): readonly ToolEntry[];
  /** Find a tool by its namespaced name (undefined when unknown). */
  lookup(name: string): ToolEntry | undefined;
  /**
   * Call a tool by its namespaced name. Resolves with the server's result (which may be `isError`);
   * rejects with `McpError` (`TOOL_NOT_FOUND`, `TOOL_TIMEOUT`, `CANCELLED`, `TOOL_EXECUTION_FAILED`).
   */
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  /** The skills the servers publish (names and descriptions from their listings; no file read). Absent: none. */
  listSkills?(): readonly SkillSummary[];
  /**
   * Load a skill (its `SKILL.md`, or `file` of it) for the model: read now, verified against the listing.
   * @throws McpError `RESOURCE_NOT_FOUND` (no such skill or file), `TOOL_EXECUTION_FAILED` (refused: digest, size, frontmatter; or the read failed).
   */
  loadSkill?(name: string, file?: string, options?: { signal?: AbortSignal }): Promise<string>;
}
