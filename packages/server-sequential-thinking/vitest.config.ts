import { mergeConfig } from 'vitest/config';
import { unitConfig } from '../../vitest.shared.ts';

const config = mergeConfig(unitConfig, {
  // One throwaway PostgreSQL per run for the PostgreSQL chain store's tests.
  test: { globalSetup: ['test/postgres/globalSetup.ts'] },
});
// Without `import`: vitest applies these conditions to `require` inside CommonJS packages too, and `pg`'s
// `require('pg-pool')` would then get pg-pool's ES module instead of its CommonJS build ("Class extends value
// [object Module]"). Node adds `import` by itself for `import` statements.
const conditions = ['@mcpkit/source', 'module', 'node', 'default'];
config.resolve.conditions = conditions;
config.ssr.resolve.conditions = conditions;
export default config;
