import { defineConfig } from 'tsup';

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/testing/index.ts',
    'src/size.ts',
    'src/tasksExtension/index.ts',
    'src/tasksExtension/postgresStore.ts',
    'src/runner/http/serve.ts',
    'src/lowLevel.ts',
    'src/tasks/index.ts',
    'src/skills/index.ts',
  ],
  format: ['esm'],
  dts: true,
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: false,
  // The testing entry's clients (the v2 client for 2026, the v1 SDK client for 2025) are optional peers, and so
  // left out of the bundle: the user's test setup provides them.
  external: ['@modelcontextprotocol/client', '@modelcontextprotocol/sdk', 'pg'],
});
