import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { dynamicResource, RESOURCE_TYPE_BLOB, RESOURCE_TYPE_TEXT } from '../resources/templates.js';

export const getResourceReference = defineTool({
  name: 'get-resource-reference',
  title: 'Get Resource Reference Tool',
  description: 'Returns a resource reference that can be used by MCP clients',
  input: {
    resourceType: z.enum([RESOURCE_TYPE_TEXT, RESOURCE_TYPE_BLOB]).default(RESOURCE_TYPE_TEXT),
    resourceId: z.number().default(1).describe('ID of the text resource to fetch'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ resourceType, resourceId }) => {
    // The schema admits any number; a non-positive or fractional id gets the reference's message.
    const resource = dynamicResource(resourceType, resourceId);
    return {
      content: [
        { type: 'text', text: `Returning resource reference for Resource ${resourceId}:` },
        { type: 'resource', resource },
        { type: 'text', text: `You can access this resource using the URI: ${resource.uri}` },
      ],
    };
  },
});
