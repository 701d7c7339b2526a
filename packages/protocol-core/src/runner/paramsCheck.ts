/**
 * The -32602 answer, of one line naming the field, for a request whose params do not match its method's
 * schema (`arguments: "x"`, `uri: 5`, `name: ["a"]`), checked where our runners take messages in (stdio
 * lines, HTTP bodies) before the SDK sees them. The v2 SDK checks them too, but answers every method but
 * `tools/call` with -32603 and all of them with zod's JSON dump of the issues, and has no public hook to
 * word that otherwise. In-process connections (tests over `InMemoryTransport`) still get the SDK's answer.
 */
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/core';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describeIssues } from '../answerCap.js';
import { ErrorCode } from '../errors.js';
import { plainMeta } from './jsonRpcCheck.js';

interface ParamsSchema {
  safeParse(
    value: unknown,
  ): { success: true } | { success: false; error: { issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey> }> } };
}

const SCHEMAS: Readonly<Record<string, ParamsSchema>> = {
  'tools/call': CallToolRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'prompts/get': GetPromptRequestSchema,
  'prompts/list': ListPromptsRequestSchema,
};

export interface ParamsProblem {
  id: string | number;
  code: number;
  message: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether the params of the two busiest methods are certainly what their schema accepts, checked by hand
 * (the schemas strip unknown keys, so other keys pass): `tools/call` with a string `name`, an object
 * `arguments` or none, no `task`; a list with no params or a string `cursor`. Anything else takes the schema.
 */
function plainParams(method: string, params: unknown): boolean {
  if (method === 'tools/call') {
    if (!isPlainObject(params) || typeof params.name !== 'string' || params.task !== undefined) return false;
    return (params.arguments === undefined || isPlainObject(params.arguments)) && plainMeta(params._meta);
  }
  if (method === 'tools/list' || method === 'resources/list' || method === 'prompts/list' || method === 'resources/templates/list') {
    if (params === undefined) return true;
    return isPlainObject(params) && (params.cursor === undefined || typeof params.cursor === 'string') && plainMeta(params._meta);
  }
  return false;
}

/** The problem with a request's params (`Invalid <method> request: <message> at <path>`), or undefined. */
export function paramsProblem(message: JSONRPCMessage): ParamsProblem | undefined {
  if (!('method' in message) || !('id' in message) || message.id === undefined) return undefined;
  const schema = SCHEMAS[message.method];
  if (!schema || plainParams(message.method, message.params)) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  return {
    id: message.id,
    code: ErrorCode.InvalidParams,
    message: `Invalid ${message.method} request: ${describeIssues(parsed.error.issues)}`,
  };
}
