/**
 * `tools/list` with the reference's spelling of nullable parameters. zod 4 writes `string | null` as
 * `type: ["string", "null"]` (its `compactTypeUnion` pass, which no schema shape avoids); the
 * reference (pydantic) writes `anyOf: [{type: "string"}, {type: "null"}]`, and some clients (and the
 * Inspector's `--strict` portability check) reject the array form. So this server rewrites the
 * schemas it lists; other mcpkit servers keep zod's form.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

type Json = Record<string, unknown>;
type Handler = (request: unknown, extra: unknown) => Promise<unknown> | unknown;

/** A copy of `schema` with every `type: [..., "null"]` written as `anyOf` of bare types (constraints stay beside it). */
export function nullableAsAnyOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsAnyOf);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'type' && Array.isArray(value) && value.length > 1) {
      out.anyOf = value.map((type) => ({ type }));
    } else out[key] = key === 'default' || key === 'const' || key === 'enum' ? value : nullableAsAnyOf(value);
  }
  return out;
}

/**
 * Rewrites the schemas of `server`'s `tools/list` answer (call after the tools are registered). The
 * SDK keeps its handlers in `Protocol._requestHandlers`; without one (another SDK layout) nothing changes.
 */
export function listNullablesAsAnyOf(server: McpServer): void {
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const original = handlers?.get('tools/list');
  if (!handlers || !original) return;
  handlers.set('tools/list', async (request, extra) => {
    const result = (await original(request, extra)) as { tools?: Json[] };
    if (!Array.isArray(result?.tools)) return result;
    return {
      ...result,
      tools: result.tools.map((tool) => ({
        ...tool,
        inputSchema: nullableAsAnyOf(tool.inputSchema),
        ...(tool.outputSchema ? { outputSchema: nullableAsAnyOf(tool.outputSchema) } : {}),
      })),
    };
  });
}
