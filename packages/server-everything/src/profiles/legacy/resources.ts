import { ErrorCode } from '@mcpkit/protocol-core';
import { setRawRequestHandler } from '@mcpkit/protocol-core/low-level';
import { ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/core';
import type { McpServer } from '@modelcontextprotocol/server';

/** One of the 100 static resources, as the reference lists, reads and embeds it (`name` included). */
export type StaticResource =
  | { uri: string; name: string; mimeType: 'text/plain'; text: string }
  | { uri: string; name: string; mimeType: 'application/octet-stream'; blob: string };

const RESOURCE_URI_PREFIX = 'test://static/resource/';
export const RESOURCE_COUNT = 100;
const PAGE_SIZE = 10;

/** `test://static/resource/1` … `/100`: odd ids are text, even ids are base64 blobs (the reference's instructions say the opposite). */
export const STATIC_RESOURCES: readonly StaticResource[] = Array.from({ length: RESOURCE_COUNT }, (_, i): StaticResource => {
  const id = i + 1;
  const uri = `${RESOURCE_URI_PREFIX}${id}`;
  const name = `Resource ${id}`;
  return i % 2 === 0
    ? { uri, name, mimeType: 'text/plain', text: `Resource ${id}: This is a plaintext resource` }
    : { uri, name, mimeType: 'application/octet-stream', blob: Buffer.from(`Resource ${id}: This is a base64 blob`).toString('base64') };
});

const RESOURCE_TEMPLATE = {
  uriTemplate: 'test://static/resource/{id}',
  name: 'Static Resource',
  description: 'A static resource with a numeric ID',
};

/** The resource `uri` names, as the reference finds it: `parseInt` of the last path segment. */
function findResource(uri: string): StaticResource | undefined {
  if (!uri.startsWith(RESOURCE_URI_PREFIX)) return undefined;
  const index = Number.parseInt(uri.split('/').pop() ?? '', 10) - 1;
  return index >= 0 && index < RESOURCE_COUNT ? STATIC_RESOURCES[index] : undefined;
}

/** The start index a `resources/list` cursor names: the reference's `btoa(String(index))`. */
function decodeCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  let decoded: string;
  try {
    decoded = atob(cursor);
  } catch {
    // Worded like the reference's errors (no `MCP error` prefix on the wire), with the code the spec asks for.
    throw Object.assign(new Error(`Invalid cursor: ${cursor}`), { code: ErrorCode.InvalidParams });
  }
  const index = Number.parseInt(decoded, 10);
  // The reference reads a cursor that is not a number as the first page; a negative or past-the-end index is clamped.
  return Number.isNaN(index) ? 0 : Math.min(Math.max(index, 0), RESOURCE_COUNT);
}

/** `resources/list` (10 per page, full objects with `text`/`blob` as the reference sends them), the template, and `resources/read`. */
export function setResourceHandlers(server: McpServer): void {
  setRawRequestHandler(server, ListResourcesRequestSchema, async (request) => {
    const start = decodeCursor(request.params?.cursor);
    const end = Math.min(start + PAGE_SIZE, RESOURCE_COUNT);
    return {
      resources: STATIC_RESOURCES.slice(start, end),
      ...(end < RESOURCE_COUNT ? { nextCursor: btoa(String(end)) } : {}),
    };
  });
  setRawRequestHandler(server, ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [RESOURCE_TEMPLATE] }));
  setRawRequestHandler(server, ReadResourceRequestSchema, async (request) => {
    const resource = findResource(request.params.uri);
    if (!resource) throw new Error(`Unknown resource: ${request.params.uri}`);
    return { contents: [resource] };
  });
}
