import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
  format: ['esm'],
  dts: true,
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: false,
});
