/**
 * What a server's skills promise, checked through a real client: every skill file verifies against its listed
 * digest and size, `skills/get` returns what `skills/list` listed, every example call names a tool the server
 * lists and its arguments validate against that tool's `inputSchema`, and every tool-like name in backticks is a
 * tool or one of the tools' argument or result fields. For tests (`@mcpkit/protocol-core/testing`).
 */
import { createHash } from 'node:crypto';
import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';
import { type Skill, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { z } from 'zod';
import { connectV2InMemory, type V2Mode } from '../testing/v2.js';
import { mentionedNames, skillExamples } from './examples.js';

export interface SkillsReport {
  skills: Skill[];
  /** How many example calls were checked against a schema. */
  examples: number;
  /** Every broken promise, one line each; empty when all hold. */
  problems: string[];
}

export interface CheckSkillsOptions {
  /** Backticked names that are neither tools nor fields but belong in the text (`--allow-write`, `main`…). */
  allowNames?: readonly string[];
}

const loose = z.looseObject({});

/** Property names anywhere in a JSON Schema. */
function propertyNames(schema: unknown, into: Set<string>, depth = 0): void {
  if (depth > 16 || typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) {
    for (const item of schema) propertyNames(item, into, depth + 1);
    return;
  }
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'properties' || key === '$defs' || key === 'definitions') && typeof value === 'object' && value !== null) {
      for (const name of Object.keys(value)) if (key === 'properties') into.add(name);
    }
    propertyNames(value, into, depth + 1);
  }
}

function bytesOf(content: { text?: unknown; blob?: unknown }): Uint8Array {
  if (typeof content.text === 'string') return new TextEncoder().encode(content.text);
  if (typeof content.blob === 'string') return Buffer.from(content.blob, 'base64');
  return new Uint8Array();
}

/** Checks the skills `client` (connected in the 2026-07-28 era) sees; see the module comment. */
export async function checkSkills(client: Client, { allowNames = [] }: CheckSkillsOptions = {}): Promise<SkillsReport> {
  const problems: string[] = [];
  const skillsClient = new SkillsClient(client);
  if (!skillsClient.supported) return { skills: [], examples: 0, problems: ['the server does not declare io.modelcontextprotocol/skills'] };

  const skills: Skill[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const listing = await skillsClient.list(cursor === undefined ? {} : { cursor });
    for (const invalid of listing.invalid) problems.push(`skills/list entry ${invalid.index}: ${invalid.reason}`);
    skills.push(...listing.skills);
    cursor = listing.nextCursor;
    if (!cursor) break;
  }
  if (skills.length === 0) problems.push('skills/list lists no skill');

  const tools = new Map<string, Record<string, unknown>>();
  const fields = new Set<string>();
  cursor = undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor });
    for (const tool of result.tools) {
      tools.set(tool.name, tool.inputSchema as Record<string, unknown>);
      propertyNames(tool.inputSchema, fields);
      propertyNames(tool.outputSchema, fields);
    }
    cursor = result.nextCursor;
    if (!cursor) break;
  }

  const validator = new AjvJsonSchemaValidator();
  let examples = 0;
  for (const skill of skills) {
    const got = await skillsClient.get(skill.uri);
    if (JSON.stringify(got.skill) !== JSON.stringify(skill)) problems.push(`${skill.uri}: skills/get differs from skills/list`);
    if (skill.resources === 'dynamic') {
      problems.push(`${skill.uri}: resources are "dynamic"; ours are static files`);
      continue;
    }
    for (const resource of skill.resources) {
      // Read raw and verify here (the SDK's SkillsClient verifies too, below): digest and size are the promise.
      const raw = await client.request({ method: 'resources/read', params: { uri: resource.uri } }, loose);
      const contents = (raw.contents as { uri: string; text?: unknown; blob?: unknown }[] | undefined) ?? [];
      const bytes = bytesOf(contents[0] ?? {});
      const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      if (bytes.byteLength !== resource.size) problems.push(`${resource.uri}: ${bytes.byteLength} bytes read, ${resource.size} listed`);
      if (digest !== resource.digest) problems.push(`${resource.uri}: digest ${digest} read, ${resource.digest} listed`);
      const file = await skillsClient.read(skill, resource.uri);
      if (!file.verified) problems.push(`${resource.uri}: the SDK client did not verify it`);
      if (!resource.uri.endsWith('.md') || file.text === undefined) continue;

      const parsed = skillExamples(file.text);
      for (const problem of parsed.problems) problems.push(`${resource.uri} ${problem}`);
      for (const example of parsed.examples) {
        const schema = tools.get(example.tool);
        if (!schema) {
          problems.push(`${resource.uri} line ${example.line}: example calls ${example.tool}, which the server does not list`);
          continue;
        }
        examples += 1;
        const result = validator.getValidator(schema)(example.arguments);
        if (!result.valid) problems.push(`${resource.uri} line ${example.line}: ${example.tool} arguments: ${result.errorMessage}`);
      }
      for (const name of mentionedNames(file.text)) {
        if (!tools.has(name) && !fields.has(name) && !allowNames.includes(name))
          problems.push(`${resource.uri}: \`${name}\` is neither a tool nor a tool's field`);
      }
    }
  }
  return { skills, examples, problems };
}

export interface SkillsPair extends AsyncDisposable {
  client: Client;
}

/**
 * A v2 client (`2026-07-28` pinned by default, or `auto`) on servers from `factory` through the SDK's
 * `createMcpHandler`, in-process, with the SDK's request context passed on: the era decides whether a server
 * attaches its skills (`serverSkills`), so the factory must see it. `legacy` connects one server made with
 * `{ era: 'legacy' }` over a linked in-memory pair (a 2025 session, as `serveStdio` makes it).
 */
export async function connectWithContext(
  factory: (context: McpRequestContext) => McpServer,
  { mode = '2026-07-28', capabilities = {} }: { mode?: V2Mode; capabilities?: ClientCapabilities } = {},
): Promise<SkillsPair> {
  // connectV2InMemory's wiring; only the factory's context differs: a 2025 session's server is told its era, and
  // the SDK's handler passes each 2026 request's context itself.
  const app = mode === 'legacy' ? () => factory({ era: 'legacy' }) : (factory as (context?: McpRequestContext) => McpServer);
  return connectV2InMemory(app as () => McpServer, { mode, capabilities });
}
