import { defineTool } from '@mcpkit/protocol-core';
import { redactEnv } from '../../../shared/envSecrets.js';
import type { LegacySession } from '../session.js';
import { objectSchema } from './objectSchema.js';

/**
 * `JSON.stringify(env, null, 2)` as in the reference, except that secret-looking values are `[redacted]`
 * unless the server runs with `--show-env-secrets` (see `shared/envSecrets.ts`).
 */
export const printEnv = defineTool({
  name: 'printEnv',
  title: 'Print Environment',
  description: 'Prints all environment variables, helpful for debugging MCP server configuration',
  input: {},
  listing: { inputSchema: objectSchema({}) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (_args, { config }: LegacySession) => ({
    content: [{ type: 'text', text: JSON.stringify(redactEnv(config.env(), { showSecrets: config.showEnvSecrets }), null, 2) }],
  }),
});
