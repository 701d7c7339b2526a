import { z } from 'zod';
import { redactEnv } from '../../../shared/envSecrets.js';
import { defineLegacyTool, objectSchema } from './types.js';

/**
 * `JSON.stringify(env, null, 2)` as in the reference, except that secret-looking values are `[redacted]`
 * unless the server runs with `--show-env-secrets` (see `shared/envSecrets.ts`).
 */
export const printEnv = defineLegacyTool({
  name: 'printEnv',
  title: 'Print Environment',
  description: 'Prints all environment variables, helpful for debugging MCP server configuration',
  inputSchema: objectSchema({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  args: z.object({}),
  call: (_args, { config }) => ({
    content: [{ type: 'text', text: JSON.stringify(redactEnv(config.env(), { showSecrets: config.showEnvSecrets }), null, 2) }],
  }),
});
