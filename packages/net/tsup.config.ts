import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/policy.ts'],
  format: ['esm'],
  dts: true,
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: false,
});
