import { stdioConfig } from '../../vitest.shared.ts';

// Without `import`, as in vitest.config.ts: otherwise `pg`'s `require('pg-pool')` gets pg-pool's ES module
// ("Class extends value [object Module]") in the tests that query the database themselves.
const conditions = ['@mcpkit/source', 'module', 'node', 'default'];
stdioConfig.resolve!.conditions = conditions;
stdioConfig.ssr!.resolve!.conditions = conditions;
// The same throwaway PostgreSQL as the unit run, for the bin's PostgreSQL tests (replicas).
stdioConfig.test!.globalSetup = ['test/postgres/globalSetup.ts'];
export default stdioConfig;
