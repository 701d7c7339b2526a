import { defineTool } from '@mcpkit/protocol-core';
import { RED_PIXEL_PNG } from '../media.js';
import { FIXED_RESULT } from './fixed.js';

/** Scenario `tools-call-image`. */
export const testImageContent = defineTool({
  name: 'test_image_content',
  title: 'Image Content',
  description: 'Tests image content response (a 1×1 red PNG)',
  input: {},
  annotations: FIXED_RESULT,
  handler: () => ({ content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] }),
});
