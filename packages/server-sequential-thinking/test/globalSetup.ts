/** vitest globalSetup (test/globalSetup.ts, found by the vitest configs): the run's throwaway PostgreSQL (shared fixture: @mcpkit/test-utils). */
import { postgresGlobalSetup } from '@mcpkit/test-utils/postgres-setup';

export default postgresGlobalSetup('server-sequential-thinking tests');
