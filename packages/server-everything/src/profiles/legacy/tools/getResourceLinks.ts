import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { STATIC_RESOURCES } from '../resources.js';
import { objectSchema } from './objectSchema.js';

export const getResourceLinks = defineTool({
  name: 'getResourceLinks',
  title: 'Get Resource Links',
  description: 'Returns multiple resource links that reference different types of resources',
  input: { count: z.number().min(1).max(10).default(3) },
  listing: {
    inputSchema: objectSchema({
      count: { type: 'number', minimum: 1, maximum: 10, default: 3, description: 'Number of resource links to return (1-10)' },
    }),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler({ count }) {
    return {
      content: [
        {
          type: 'text',
          text: `Here are ${count} resource links to resources available in this server (see full output in tool response if your client does not support resource_link yet):`,
        },
        // `i < count` as in the reference: a fractional count (2.5) gives 3 links.
        ...STATIC_RESOURCES.filter((_, i) => i < count).map((resource, i) => ({
          type: 'resource_link' as const,
          uri: resource.uri,
          name: resource.name,
          description: `Resource ${i + 1}: ${resource.mimeType === 'text/plain' ? 'plaintext resource' : 'binary blob resource'}`,
          mimeType: resource.mimeType,
        })),
      ],
    };
  },
});
