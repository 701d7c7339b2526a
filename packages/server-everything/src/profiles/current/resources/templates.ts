import { ToolError } from '@mcpkit/protocol-core';
import type { BlobResourceContents, TextResourceContents } from '@modelcontextprotocol/server';
import { completable, type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const RESOURCE_TYPE_TEXT = 'Text';
export const RESOURCE_TYPE_BLOB = 'Blob';
export const RESOURCE_TYPES: readonly string[] = [RESOURCE_TYPE_TEXT, RESOURCE_TYPE_BLOB];

const TEXT_URI_BASE = 'demo://resource/dynamic/text';
const BLOB_URI_BASE = 'demo://resource/dynamic/blob';

export const textResourceUri = (resourceId: number): URL => new URL(`${TEXT_URI_BASE}/${resourceId}`);
export const blobResourceUri = (resourceId: number): URL => new URL(`${BLOB_URI_BASE}/${resourceId}`);

/** A dynamic text resource, stamped with the local time (as the reference). */
export function textResource(uri: URL, resourceId: number): TextResourceContents {
  const timestamp = new Date().toLocaleTimeString();
  return {
    uri: uri.toString(),
    mimeType: 'text/plain',
    text: `Resource ${resourceId}: This is a plaintext resource created at ${timestamp}`,
  };
}

/** A dynamic blob resource. Its contents say `text/plain` although the template says `application/octet-stream`, as the reference's do. */
export function blobResource(uri: URL, resourceId: number): BlobResourceContents {
  const timestamp = new Date().toLocaleTimeString();
  const blob = Buffer.from(`Resource ${resourceId}: This is a base64 blob created at ${timestamp}`).toString('base64');
  return { uri: uri.toString(), mimeType: 'text/plain', blob };
}

/** The resource of `resourceType` and `resourceId`; an invalid one is refused with the reference's message. */
export function dynamicResource(resourceType: unknown, resourceId: unknown): TextResourceContents | BlobResourceContents {
  if (typeof resourceType !== 'string' || !RESOURCE_TYPES.includes(resourceType)) {
    throw new ToolError(`Invalid resourceType: ${resourceType}. Must be ${RESOURCE_TYPE_TEXT} or ${RESOURCE_TYPE_BLOB}.`);
  }
  const id = Number(resourceId);
  if (!Number.isFinite(id) || !Number.isInteger(id) || id < 1) {
    throw new ToolError(`Invalid resourceId: ${resourceId}. Must be a finite positive integer.`);
  }
  return resourceType === RESOURCE_TYPE_TEXT ? textResource(textResourceUri(id), id) : blobResource(blobResourceUri(id), id);
}

const isPositiveInteger = (value: string) => {
  const id = Number(value);
  return Number.isInteger(id) && id > 0;
};

/** Completes `resourceType` by prefix. */
export const resourceTypeCompleter = completable(z.string().describe('Type of resource to fetch'), (value) =>
  RESOURCE_TYPES.filter((t) => t.startsWith(value)),
);

/** Prompt arguments are strings; a positive integer completes to itself. */
export const resourceIdForPromptCompleter = completable(z.string().describe('ID of the text resource to fetch'), (value) =>
  isPositiveInteger(value) ? [value] : [],
);

export const resourceIdForResourceTemplateCompleter = (value: string): string[] => (isPositiveInteger(value) ? [value] : []);

function parseResourceId(uri: URL, variables: Record<string, string | string[]>): number {
  const id = Number(String(variables.resourceId ?? ''));
  if (Number.isFinite(id) && Number.isInteger(id) && id > 0) return id;
  throw new Error(`Unknown resource: ${uri.toString()}`);
}

/** The two dynamic templates; not listed by `resources/list`. */
export function registerResourceTemplates(server: McpServer): void {
  server.registerResource(
    'Dynamic Text Resource',
    new ResourceTemplate(`${TEXT_URI_BASE}/{resourceId}`, {
      list: undefined,
      complete: { resourceId: resourceIdForResourceTemplateCompleter },
    }),
    {
      mimeType: 'text/plain',
      description: 'Plaintext dynamic resource fabricated from the {resourceId} variable, which must be an integer.',
    },
    async (uri, variables) => ({ contents: [textResource(uri, parseResourceId(uri, variables))] }),
  );
  server.registerResource(
    'Dynamic Blob Resource',
    new ResourceTemplate(`${BLOB_URI_BASE}/{resourceId}`, {
      list: undefined,
      complete: { resourceId: resourceIdForResourceTemplateCompleter },
    }),
    {
      mimeType: 'application/octet-stream',
      description: 'Binary (base64) dynamic resource fabricated from the {resourceId} variable, which must be an integer.',
    },
    async (uri, variables) => ({ contents: [blobResource(uri, parseResourceId(uri, variables))] }),
  );
}
