import { defineTool, textResult } from '@mcpkit/protocol-core';
import { FIXED_RESULT } from './fixed.js';

/** Scenario `tools-call-simple-text`. */
export const testSimpleText = defineTool({
  name: 'test_simple_text',
  title: 'Simple Text',
  description: 'Tests simple text content response',
  input: {},
  annotations: FIXED_RESULT,
  handler: () => textResult('This is a simple text response for testing.'),
});
