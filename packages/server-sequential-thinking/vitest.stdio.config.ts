import { existsSync } from 'node:fs';
import { stdioConfig } from '../../vitest.shared.ts';

// Without `import`, as in vitest.config.ts: otherwise `pg`'s `require('pg-pool')` gets pg-pool's ES module
// ("Class extends value [object Module]") in the tests that query the database themselves.
const conditions = ['@mcpkit/source', 'module', 'node', 'default'];
stdioConfig.resolve!.conditions = conditions;
stdioConfig.ssr!.resolve!.conditions = conditions;
// The same run-wide fixture as the unit run (`test/globalSetup.ts`), when the server has one.
if (existsSync('test/globalSetup.ts')) stdioConfig.test!.globalSetup = ['test/globalSetup.ts'];
export default stdioConfig;
