import { defineTool } from '@mcpkit/protocol-core';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { blobResource, blobResourceUri, textResource, textResourceUri } from '../resources/templates.js';

export const getResourceLinks = defineTool({
  name: 'get-resource-links',
  title: 'Get Resource Links Tool',
  description: 'Returns up to ten resource links that reference different types of resources',
  input: { count: z.number().min(1).max(10).default(3).describe('Number of resource links to return (1-10)') },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ count }) => {
    const content: CallToolResult['content'] = [
      { type: 'text', text: `Here are ${count} resource links to resources available in this server:` },
    ];
    for (let resourceId = 1; resourceId <= count; resourceId++) {
      // As the reference: even ids are Text, odd ids Blob; both report text/plain, hence "plaintext resource".
      const isText = resourceId % 2 === 0;
      const resource = isText
        ? textResource(textResourceUri(resourceId), resourceId)
        : blobResource(blobResourceUri(resourceId), resourceId);
      content.push({
        type: 'resource_link',
        uri: resource.uri,
        name: `${isText ? 'Text' : 'Blob'} Resource ${resourceId}`,
        description: `Resource ${resourceId}: ${resource.mimeType === 'text/plain' ? 'plaintext resource' : 'binary blob resource'}`,
        mimeType: resource.mimeType,
      });
    }
    return { content };
  },
});
