import { defineConfig } from 'tsup';

// The CLI is an application: @mcpkit/agent stays a plain dependency (installed with it, the MCP SDK client with it).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: false,
});
