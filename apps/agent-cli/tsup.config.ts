import { defineConfig } from 'tsup';

// The CLI is an application: @mcpkit/agent and the SDK stay plain dependencies (installed with it).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: false,
});
