import { defineTool, textResult } from '@mcpkit/protocol-core';
import { inputRequired } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ConformanceSession } from '../session.js';
import { FIXED_RESULT } from './fixed.js';
import { ASKS_THE_USER } from './testElicitation.js';

/**
 * The diagnostic tools the `server-stateless` scenario (SEP-2575, 2026-07-28) calls by name, and the tool with an
 * `x-mcp-header` argument of `http-custom-header-server-validation` (SEP-2243).
 */

/** Needs `sampling`: called without it, the SDK refuses the call with -32021 (HTTP 400) before anything is asked. */
const testMissingCapability = defineTool({
  name: 'test_missing_capability',
  title: 'Requires Sampling',
  description: 'SEP-2575: requires the `sampling` client capability (drives the -32021 undeclared-capability rejection)',
  input: {},
  annotations: ASKS_THE_USER,
  handler: (_args, _session: ConformanceSession, ctx) => {
    if (ctx.mcpReq.inputResponses?.llm_answer === undefined) {
      return inputRequired({
        inputRequests: {
          llm_answer: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Reply with the single word: pong' } }],
            maxTokens: 16,
          }),
        },
      });
    }
    return textResult('sampling round-trip complete');
  },
});

/** A plain answer: the scenario checks that the call's response stream carries no request of the server's own. */
const testStreamingElicitation = defineTool({
  name: 'test_streaming_elicitation',
  title: 'Result Frames Only',
  description: 'SEP-2575: yields a response stream carrying no independent top-level JSON-RPC requests',
  input: {},
  annotations: FIXED_RESULT,
  handler: () => textResult('stream observed: result frames only, no top-level requests'),
});

/** Logs through the request's own channel, which sends nothing unless the request set `_meta` logLevel. */
const testLoggingTool = defineTool({
  name: 'test_logging_tool',
  title: 'Request-Scoped Log',
  description: 'SEP-2575: logs via the request-scoped channel so the no-log-without-logLevel rule is exercised',
  input: {},
  annotations: FIXED_RESULT,
  handler: async (_args, _session: ConformanceSession, ctx) => {
    await ctx.mcpReq.log('info', 'test_logging_tool ran (delivered only when the request set _meta.logLevel)');
    return textResult('logged through the request-scoped, logLevel-gated channel');
  },
});

/** `region` is mirrored into the `Mcp-Param-Region` header (SEP-2243); the SDK checks header and body agree. */
const testXMcpHeader = defineTool({
  name: 'test_x_mcp_header',
  title: 'Mirrored Header',
  description: 'Tests SEP-2243 Mcp-Param-* server-side validation',
  input: {
    region: z.string().describe('mirrored into Mcp-Param-Region').meta({ 'x-mcp-header': 'Region' }).optional(),
    level: z.number().int().describe('non-mirrored argument').optional(),
  },
  annotations: FIXED_RESULT,
  handler: ({ region }) => textResult(`region=${region ?? '<none>'}`),
});

export const statelessDiagnosticTools = [testMissingCapability, testStreamingElicitation, testLoggingTool, testXMcpHeader] as const;
