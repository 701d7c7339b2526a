import type { McpServer } from '@modelcontextprotocol/server';
import { DOCUMENTS } from '../documents.js';

const DOCUMENT_URI_BASE = 'demo://resource/static/document';

function mimeTypeOf(fileName: string): string {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.md') || lower.endsWith('.markdown')) return 'text/markdown';
  if (lower.endsWith('.json')) return 'application/json';
  return 'text/plain';
}

/** The reference's `docs/` files, one static resource each, in its order. */
export function registerDocumentResources(server: McpServer): void {
  for (const [name, text] of DOCUMENTS) {
    const mimeType = mimeTypeOf(name);
    server.registerResource(
      name,
      `${DOCUMENT_URI_BASE}/${encodeURIComponent(name)}`,
      { mimeType, description: `Static document file exposed from /docs: ${name}` },
      async (uri) => ({ contents: [{ uri: uri.toString(), mimeType, text }] }),
    );
  }
}

/** The server instructions: the reference's `docs/instructions.md`. */
export function instructions(): string {
  return DOCUMENTS.find(([name]) => name === 'instructions.md')![1];
}
