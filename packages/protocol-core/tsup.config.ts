import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing/index.ts', 'src/size.ts'],
  format: ['esm'],
  dts: true,
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: false,
});
