import { defineTool, ToolError } from '@mcpkit/protocol-core';
import { FIXED_RESULT } from './fixed.js';

/** Scenario `tools-call-error`: a tool failure is an `isError` result, not a JSON-RPC error. */
export const testErrorHandling = defineTool({
  name: 'test_error_handling',
  title: 'Error Handling',
  description: 'Tests error response handling: always fails with an isError result',
  input: {},
  annotations: FIXED_RESULT,
  handler: () => {
    throw new ToolError('This tool intentionally returns an error for testing');
  },
});
