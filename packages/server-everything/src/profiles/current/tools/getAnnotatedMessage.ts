import { defineTool } from '@mcpkit/protocol-core';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { MCP_TINY_IMAGE } from '../../../shared/mcpTinyImage.js';

const MESSAGES = {
  error: { text: 'Error: Operation failed', annotations: { priority: 1.0, audience: ['user', 'assistant'] } },
  success: { text: 'Operation completed successfully', annotations: { priority: 0.7, audience: ['user'] } },
  debug: { text: 'Debug: Cache hit ratio 0.95, latency 150ms', annotations: { priority: 0.3, audience: ['assistant'] } },
} as const;

export const getAnnotatedMessage = defineTool({
  name: 'get-annotated-message',
  title: 'Get Annotated Message Tool',
  description: 'Demonstrates how annotations can be used to provide metadata about content.',
  input: {
    messageType: z.enum(['error', 'success', 'debug']).describe('Type of message to demonstrate different annotation patterns'),
    includeImage: z.boolean().default(false).describe('Whether to include an example image'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ messageType, includeImage }) => {
    const { text, annotations } = MESSAGES[messageType];
    const content: CallToolResult['content'] = [
      { type: 'text', text, annotations: { priority: annotations.priority, audience: [...annotations.audience] } },
    ];
    if (includeImage) {
      content.push({ type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png', annotations: { priority: 0.5, audience: ['user'] } });
    }
    return { content };
  },
});
