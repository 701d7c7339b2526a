import { existsSync } from 'node:fs';
import { mergeConfig } from 'vitest/config';
import { unitConfig } from '../../vitest.shared.ts';

const config = mergeConfig(unitConfig, {
  // A server whose tests need a run-wide fixture (sequential-thinking's and memory's throwaway PostgreSQL) has
  // `test/globalSetup.ts`; a server without one runs none.
  test: { globalSetup: existsSync('test/globalSetup.ts') ? ['test/globalSetup.ts'] : [] },
});
// Without `import`: vitest applies these conditions to `require` inside CommonJS packages too, and `pg`'s
// `require('pg-pool')` would then get pg-pool's ES module instead of its CommonJS build ("Class extends value
// [object Module]"). Node adds `import` by itself for `import` statements.
const conditions = ['@mcpkit/source', 'module', 'node', 'default'];
config.resolve.conditions = conditions;
config.ssr.resolve.conditions = conditions;
export default config;
