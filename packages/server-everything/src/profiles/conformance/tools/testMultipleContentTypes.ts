import { defineTool } from '@mcpkit/protocol-core';
import { RED_PIXEL_PNG } from '../media.js';
import { FIXED_RESULT } from './fixed.js';

/** Scenario `tools-call-mixed-content`. */
export const testMultipleContentTypes = defineTool({
  name: 'test_multiple_content_types',
  title: 'Multiple Content Types',
  description: 'Tests response with multiple content types (text, image, resource)',
  input: {},
  annotations: FIXED_RESULT,
  handler: () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ],
  }),
});
