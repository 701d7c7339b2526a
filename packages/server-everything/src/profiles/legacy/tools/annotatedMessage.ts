import { defineTool } from '@mcpkit/protocol-core';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { MCP_TINY_IMAGE } from '../../../shared/mcpTinyImage.js';
import { objectSchema } from './objectSchema.js';

const MESSAGES = {
  error: { text: 'Error: Operation failed', annotations: { priority: 1.0, audience: ['user', 'assistant'] } },
  success: { text: 'Operation completed successfully', annotations: { priority: 0.7, audience: ['user'] } },
  debug: { text: 'Debug: Cache hit ratio 0.95, latency 150ms', annotations: { priority: 0.3, audience: ['assistant'] } },
} as const;

export const annotatedMessage = defineTool({
  name: 'annotatedMessage',
  title: 'Annotated Message',
  description: 'Demonstrates how annotations can be used to provide metadata about content',
  input: { messageType: z.enum(['error', 'success', 'debug']), includeImage: z.boolean().default(false) },
  listing: {
    inputSchema: objectSchema(
      {
        messageType: {
          type: 'string',
          enum: ['error', 'success', 'debug'],
          description: 'Type of message to demonstrate different annotation patterns',
        },
        includeImage: { type: 'boolean', default: false, description: 'Whether to include an example image' },
      },
      ['messageType'],
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler({ messageType, includeImage }) {
    const { text, annotations } = MESSAGES[messageType];
    const content: CallToolResult['content'] = [
      { type: 'text', text, annotations: { ...annotations, audience: [...annotations.audience] } },
    ];
    if (includeImage) {
      content.push({ type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png', annotations: { priority: 0.5, audience: ['user'] } });
    }
    return { content };
  },
});
