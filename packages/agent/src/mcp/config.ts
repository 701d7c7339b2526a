/**
 * The servers config: the `mcpServers` JSON of Claude Desktop, Cursor, Cline and others, and VS
 * Code's `servers`, turned into `ServerConfig`s. Every problem is a `CONFIG_ERROR` whose one-line
 * message names the JSON path (`mcpServers.web.url: not an http(s) URL`).
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { errorMessage, McpError } from '../errors.js';
import { JsoncError, parseJsonc } from './jsonc.js';
import type {
  ApprovalMode,
  ApprovalPolicy,
  HttpOAuthConfig,
  HttpServerConfig,
  ProtocolMode,
  ServerConfig,
  StdioServerConfig,
} from './types.js';

export interface ParseConfigOptions {
  /** Relative `cwd`s are resolved against this directory (the config file's). */
  baseDir: string;
  /** Where `${env:NAME}` and `${NAME}` are looked up. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

type JsonObject = Record<string, unknown>;

const APPROVAL_MODES: readonly ApprovalMode[] = ['allow', 'deny', 'ask'];
/** The values of an entry's `protocol` (and of the host's default). */
export const PROTOCOL_MODES: readonly ProtocolMode[] = ['legacy', 'auto', '2026-07-28'];
const TYPES = ['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'] as const;
type ServerType = (typeof TYPES)[number];

function fail(path: string, problem: string): never {
  throw new McpError('CONFIG_ERROR', `${path}: ${problem}`);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `mcpServers.memory`, or `mcpServers["my server"]` when the key is not a plain identifier. */
function child(path: string, key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 37)}...` : text}`;
}

/** `${env:NAME}` and `${NAME}` replaced from `env`; a missing variable or another `${...}` form fails. */
function substitute(text: string, path: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
    const name = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner.trim())?.[1];
    if (name === undefined) fail(path, `unsupported variable ${whole} (only \${env:NAME} and \${NAME} are replaced)`);
    const value = env[name];
    if (value === undefined) fail(path, `environment variable ${name} is not set (used as ${whole})`);
    return value;
  });
}

function string(value: unknown, path: string, env?: NodeJS.ProcessEnv): string {
  if (typeof value !== 'string') fail(path, `expected a string, got ${describe(value)}`);
  return env ? substitute(value, path, env) : value;
}

function stringArray(value: unknown, path: string, env: NodeJS.ProcessEnv): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(path, `expected an array of strings, got ${describe(value)}`);
  return value.map((item, index) => string(item, `${path}[${index}]`, env));
}

function stringRecord(value: unknown, path: string, env: NodeJS.ProcessEnv): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) fail(path, `expected an object of strings, got ${describe(value)}`);
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) out[key] = string(item, child(path, key), env);
  return out;
}

function approvalMode(value: unknown, path: string): ApprovalMode {
  if (typeof value !== 'string' || !APPROVAL_MODES.includes(value as ApprovalMode)) {
    fail(path, `expected "allow", "deny" or "ask", got ${describe(value)}`);
  }
  return value as ApprovalMode;
}

/**
 * `approval` (a mode, or `{ default, tools }`) plus Cline's `alwaysAllow` / Roo's `autoApprove` lists, and
 * `autoApproveReadOnly` (false: `readOnlyHint` tools are asked like any other).
 */
function approvalPolicy(entry: JsonObject, path: string): ApprovalPolicy {
  const policy: ApprovalPolicy = { tools: {} };
  for (const key of ['alwaysAllow', 'autoApprove']) {
    const list = entry[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(child(path, key), `expected an array of tool names, got ${describe(list)}`);
    list.forEach((tool, index) => {
      policy.tools[string(tool, `${child(path, key)}[${index}]`)] = 'allow';
    });
  }
  const readOnly = entry.autoApproveReadOnly;
  if (readOnly !== undefined) {
    if (typeof readOnly !== 'boolean') fail(child(path, 'autoApproveReadOnly'), `expected true or false, got ${describe(readOnly)}`);
    policy.autoAllowReadOnly = readOnly;
  }
  const approval = entry.approval;
  const approvalPath = child(path, 'approval');
  if (approval === undefined) return policy;
  if (typeof approval === 'string') return { ...policy, default: approvalMode(approval, approvalPath) };
  if (!isObject(approval)) fail(approvalPath, `expected "allow", "deny", "ask" or { "default", "tools" }, got ${describe(approval)}`);
  for (const key of Object.keys(approval)) {
    if (key !== 'default' && key !== 'tools') fail(child(approvalPath, key), 'unknown key (expected "default" or "tools")');
  }
  if (approval.default !== undefined) policy.default = approvalMode(approval.default, child(approvalPath, 'default'));
  const tools = approval.tools;
  if (tools !== undefined) {
    const toolsPath = child(approvalPath, 'tools');
    if (!isObject(tools)) fail(toolsPath, `expected an object of tool names to modes, got ${describe(tools)}`);
    for (const [tool, mode] of Object.entries(tools)) policy.tools[tool] = approvalMode(mode, child(toolsPath, tool));
  }
  return policy;
}

function timeoutMs(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(path, `expected a positive number of milliseconds, got ${describe(value)}`);
  }
  return value;
}

function protocolMode(value: unknown, path: string): ProtocolMode | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !PROTOCOL_MODES.includes(value as ProtocolMode)) {
    fail(path, `expected "legacy", "auto" or "2026-07-28", got ${describe(value)}`);
  }
  return value as ProtocolMode;
}

/** `defer`: `false` keeps the server's tools loaded when the others are deferred behind `tool_search`. */
function defer(value: unknown, path: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') fail(path, `expected true or false, got ${describe(value)}`);
  return value;
}

/** `timeout`, `protocol` and `defer`, shared by both kinds of entry. */
function common(config: StdioServerConfig | HttpServerConfig, entry: JsonObject, path: string): void {
  const timeout = timeoutMs(entry.timeout, child(path, 'timeout'));
  if (timeout !== undefined) config.timeoutMs = timeout;
  const protocol = protocolMode(entry.protocol, child(path, 'protocol'));
  if (protocol !== undefined) config.protocol = protocol;
  if (defer(entry.defer, child(path, 'defer')) === false) config.defer = false;
}

const OAUTH_KEYS = ['clientId', 'clientSecret', 'scopes', 'clientMetadataUrl'];

/** An HTTP entry's `oauth`: `{ clientId?, clientSecret?, scopes?, clientMetadataUrl? }`. */
function oauthConfig(value: unknown, path: string, env: NodeJS.ProcessEnv): HttpOAuthConfig | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value))
    fail(path, `expected an object with "clientId", "clientSecret", "scopes" or "clientMetadataUrl", got ${describe(value)}`);
  for (const key of Object.keys(value)) {
    if (!OAUTH_KEYS.includes(key)) fail(child(path, key), `unknown key (expected ${OAUTH_KEYS.map((k) => `"${k}"`).join(', ')})`);
  }
  const config: HttpOAuthConfig = {};
  if (value.clientId !== undefined) {
    const clientId = string(value.clientId, child(path, 'clientId'), env);
    if (clientId.trim() === '') fail(child(path, 'clientId'), 'is empty');
    config.clientId = clientId;
  }
  if (value.clientSecret !== undefined) {
    if (config.clientId === undefined) fail(child(path, 'clientSecret'), 'needs "clientId" next to it');
    config.clientSecret = string(value.clientSecret, child(path, 'clientSecret'), env);
  }
  if (value.scopes !== undefined) {
    const scopes = stringArray(value.scopes, child(path, 'scopes'), env);
    scopes.forEach((scope, index) => {
      if (!/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) fail(`${child(path, 'scopes')}[${index}]`, `not a scope name: ${describe(scope)}`);
    });
    config.scopes = scopes;
  }
  if (value.clientMetadataUrl !== undefined) {
    const urlPath = child(path, 'clientMetadataUrl');
    const raw = string(value.clientMetadataUrl, urlPath, env);
    let parsed: URL | undefined;
    try {
      parsed = new URL(raw);
    } catch {
      parsed = undefined;
    }
    if (parsed?.protocol !== 'https:' || parsed.pathname === '/')
      fail(urlPath, 'expected an https URL with a path (the client ID metadata document)');
    config.clientMetadataUrl = raw;
  }
  return config;
}

function serverType(value: unknown, path: string): ServerType | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !TYPES.includes(value as ServerType)) {
    fail(path, `expected "stdio", "http", "streamable-http" or "sse", got ${describe(value)}`);
  }
  return value as ServerType;
}

function stdioServer(
  name: string,
  entry: JsonObject,
  path: string,
  options: ParseConfigOptions,
  env: NodeJS.ProcessEnv,
): StdioServerConfig {
  const command = string(entry.command, child(path, 'command'), env);
  if (command.trim() === '') fail(child(path, 'command'), 'is empty');
  const config: StdioServerConfig = {
    kind: 'stdio',
    name,
    command,
    args: stringArray(entry.args, child(path, 'args'), env),
    env: stringRecord(entry.env, child(path, 'env'), env),
    approval: approvalPolicy(entry, path),
  };
  if (entry.cwd !== undefined) {
    const cwd = string(entry.cwd, child(path, 'cwd'), env);
    config.cwd = isAbsolute(cwd) ? cwd : resolve(options.baseDir, cwd);
  }
  common(config, entry, path);
  return config;
}

function httpServer(name: string, entry: JsonObject, path: string, type: ServerType | undefined, env: NodeJS.ProcessEnv): HttpServerConfig {
  const urlPath = child(path, 'url');
  const url = string(entry.url, urlPath, env);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    fail(urlPath, 'not an http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') fail(urlPath, 'not an http(s) URL');
  const config: HttpServerConfig = {
    kind: 'http',
    name,
    url,
    headers: stringRecord(entry.headers, child(path, 'headers'), env),
    // `http` (VS Code, Claude Code) and no type: Streamable HTTP with the legacy SSE fallback.
    transport: type === 'sse' ? 'sse' : type === 'streamable-http' || type === 'streamableHttp' ? 'streamable-http' : 'auto',
    approval: approvalPolicy(entry, path),
  };
  const oauth = oauthConfig(entry.oauth, child(path, 'oauth'), env);
  if (oauth !== undefined) config.oauth = oauth;
  common(config, entry, path);
  return config;
}

function server(name: string, entry: unknown, path: string, options: ParseConfigOptions, env: NodeJS.ProcessEnv): ServerConfig | undefined {
  if (!isObject(entry)) fail(path, `expected an object, got ${describe(entry)}`);
  const disabled = entry.disabled;
  if (disabled !== undefined && typeof disabled !== 'boolean') {
    fail(child(path, 'disabled'), `expected true or false, got ${describe(disabled)}`);
  }
  if (disabled) return undefined;
  const type = serverType(entry.type, child(path, 'type'));
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (hasCommand && hasUrl) fail(path, 'has both "command" and "url"; a server is either stdio or HTTP');
  if (type === 'stdio' && !hasCommand) fail(path, 'needs "command" (type "stdio")');
  if (type !== undefined && type !== 'stdio' && !hasUrl) fail(path, `needs "url" (type "${type}")`);
  if (hasCommand) return stdioServer(name, entry, path, options, env);
  if (hasUrl) return httpServer(name, entry, path, type, env);
  return fail(path, 'needs "command" (stdio) or "url" (HTTP)');
}

/**
 * The servers of a parsed config file: `{ "mcpServers": { name: entry } }` (Claude Desktop, Cursor,
 * Cline, Windsurf) or `{ "servers": { ... } }` (VS Code), or both. An entry is stdio
 * (`command`, `args`, `env`, `cwd`) or HTTP (`url`, `headers`, `type`: `http` | `streamable-http` |
 * `sse`). Also read: `disabled: true` (skipped), `approval` (`"allow" | "deny" | "ask"` or
 * `{ default, tools: { name: mode } }`), `alwaysAllow` / `autoApprove` (tools allowed without
 * asking), `autoApproveReadOnly` (`false`: tools that say `readOnlyHint` are asked too), `timeout` (ms per tool call), `protocol` (`"legacy"` | `"auto"` | `"2026-07-28"`: which
 * protocol era to speak), `defer` (`false`: never defer this server's tools behind `tool_search`), `oauth` (HTTP:
 * `{ clientId, clientSecret, scopes, clientMetadataUrl }` for the login). `${env:NAME}` and `${NAME}` are replaced in
 * command/args/env/cwd/url/headers/oauth. Other keys are ignored. No servers: an empty array.
 * @throws McpError `CONFIG_ERROR` naming the JSON path and the problem.
 */
export function parseServersConfig(json: unknown, options: ParseConfigOptions): ServerConfig[] {
  if (!isObject(json)) fail('config', `expected a JSON object with "mcpServers", got ${describe(json)}`);
  const env = options.env ?? process.env;
  const configs: ServerConfig[] = [];
  const seen = new Map<string, string>();
  for (const key of ['mcpServers', 'servers']) {
    const servers = json[key];
    if (servers === undefined) continue;
    if (!isObject(servers)) fail(key, `expected an object of servers by name, got ${describe(servers)}`);
    for (const [name, entry] of Object.entries(servers)) {
      const path = child(key, name);
      const other = seen.get(name);
      if (other !== undefined) fail(path, `the name is also used by ${other}`);
      seen.set(name, path);
      const config = server(name, entry, path, options, env);
      if (config) configs.push(config);
    }
  }
  return configs;
}

/**
 * Read and parse a servers config file (JSON; comments and trailing commas allowed, as in VS Code's
 * `mcp.json`). Relative `cwd`s are resolved against the file's directory.
 * @throws McpError `CONFIG_ERROR`: unreadable file, invalid JSON (with line and column), bad entries.
 */
export async function loadServersConfig(path: string, env?: NodeJS.ProcessEnv): Promise<ServerConfig[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : errorMessage(error);
    throw new McpError('CONFIG_ERROR', `cannot read the config file ${path}: ${reason}`, { cause: error });
  }
  let json: unknown;
  try {
    json = parseJsonc(text);
  } catch (error) {
    const where = error instanceof JsoncError && error.line !== undefined ? `${path}:${error.line}:${error.column}` : path;
    const problem = error instanceof JsoncError ? error.problem : errorMessage(error);
    throw new McpError('CONFIG_ERROR', `${where}: invalid JSON: ${problem}`, { cause: error });
  }
  return parseServersConfig(json, { baseDir: dirname(resolve(path)), env });
}
