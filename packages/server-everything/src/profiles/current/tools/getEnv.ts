import { defineTool, textResult } from '@mcpkit/protocol-core';
import { redactEnv } from '../../../shared/envSecrets.js';
import type { CurrentSession } from '../session.js';

export const getEnv = defineTool({
  name: 'get-env',
  title: 'Print Environment Tool',
  description: 'Returns all environment variables, helpful for debugging MCP server configuration',
  input: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // The reference prints every value; secret-looking ones are `[redacted]` here unless `showEnvSecrets`.
  handler: (_args, { config }: CurrentSession) =>
    textResult(JSON.stringify(redactEnv(config.env(), { showSecrets: config.showEnvSecrets }), null, 2)),
});
