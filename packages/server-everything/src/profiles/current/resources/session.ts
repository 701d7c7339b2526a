import { ToolError } from '@mcpkit/protocol-core';
import type { BlobResourceContents, McpServer, RegisteredResource, ResourceLink, TextResourceContents } from '@modelcontextprotocol/server';

const SESSION_URI_BASE = 'demo://resource/session/';

/**
 * `demo://resource/session/<name>`. Each path segment of `name` is percent-encoded, so the URI is the
 * one `resources/read` looks up (the reference leaves `a b` unencoded and can then never read it back);
 * plain names (`README.md.gz`) give the reference's URI. A name with `.`/`..` segments is refused, since
 * URL normalisation would move it out of the session namespace.
 */
export function getSessionResourceURI(name: string): string {
  const uri = SESSION_URI_BASE + name.split('/').map(encodeURIComponent).join('/');
  if (new URL(uri).href !== uri) {
    throw new ToolError(`Invalid name ${name}: it cannot be part of a resource URI (no "." or ".." path segments).`);
  }
  return uri;
}

interface SessionResource {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
  title?: string;
}

/**
 * Resources a tool creates for the rest of this session: registered on this session's server only (so
 * no other session lists or reads them), replaced when the same URI is registered again, gone when the
 * session ends. Their payloads count against a per-session byte budget.
 */
export interface SessionResources {
  /** Registers (or replaces) the resource and returns a `resource_link` to it. */
  register(resource: SessionResource, type: 'text' | 'blob', payload: string): ResourceLink;
  /** Bytes held by this session's resources. */
  readonly bytes: number;
}

export function createSessionResources(server: McpServer, maxBytes: number): SessionResources {
  const registered = new Map<string, { handle: RegisteredResource; bytes: number }>();
  let total = 0;
  return {
    get bytes() {
      return total;
    },
    register(resource, type, payload) {
      const { uri, name, mimeType, description, title } = resource;
      const bytes = Buffer.byteLength(payload);
      const previous = registered.get(uri);
      const after = total - (previous?.bytes ?? 0) + bytes;
      if (after > maxBytes) {
        throw new ToolError(
          `Session resources would take ${after} bytes, more than this session's limit of ${maxBytes}; replace an existing one (same name) instead.`,
        );
      }
      const contents: TextResourceContents | BlobResourceContents =
        type === 'text' ? { uri, mimeType, text: payload } : { uri, mimeType, blob: payload };
      if (previous) {
        previous.handle.remove();
        registered.delete(uri);
      }
      const handle = server.registerResource(name, uri, { mimeType, description, title }, async () => ({ contents: [contents] }));
      registered.set(uri, { handle, bytes });
      total = after;
      return { type: 'resource_link', ...resource };
    },
  };
}
