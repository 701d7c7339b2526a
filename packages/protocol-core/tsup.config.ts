import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing/index.ts', 'src/size.ts'],
  format: ['esm'],
  dts: true,
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: false,
  // The 2026-era test client (a devDependency here, like the v1 SDK client): the testing entry imports it,
  // the user's test setup provides it.
  external: ['@modelcontextprotocol/client'],
});
