import { defineTool, ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { STATIC_RESOURCES } from '../resources.js';
import { objectSchema } from './objectSchema.js';

/** Embeds the static resource whole, `name` included, as the reference sends it (SDK ≥ 1.23 would strip `name`). */
export const getResourceReference = defineTool({
  name: 'getResourceReference',
  title: 'Get Resource Reference',
  description: 'Returns a resource reference that can be used by MCP clients',
  input: { resourceId: z.number().min(1).max(100) },
  listing: {
    inputSchema: objectSchema(
      { resourceId: { type: 'number', minimum: 1, maximum: 100, description: 'ID of the resource to reference (1-100)' } },
      ['resourceId'],
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler({ resourceId }) {
    // A fractional id (2.5) passes the schema; the reference then embeds `undefined`. Its own message for a missing resource is clearer.
    const resource = Number.isInteger(resourceId) ? STATIC_RESOURCES[resourceId - 1] : undefined;
    if (!resource) throw new ToolError(`Resource with ID ${resourceId} does not exist`);
    return {
      content: [
        { type: 'text', text: `Returning resource reference for Resource ${resourceId}:` },
        { type: 'resource', resource },
        { type: 'text', text: `You can access this resource using the URI: ${resource.uri}` },
      ],
    };
  },
});
