import { defineTool } from '@mcpkit/protocol-core';
import { FIXED_RESULT } from './fixed.js';

/** Scenario `tools-call-embedded-resource`. */
export const testEmbeddedResource = defineTool({
  name: 'test_embedded_resource',
  title: 'Embedded Resource',
  description: 'Tests embedded resource content response',
  input: {},
  annotations: FIXED_RESULT,
  handler: () => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ],
  }),
});
