/** vitest globalSetup: the run's throwaway PostgreSQL (shared fixture: @mcpkit/test-utils). */
import { postgresGlobalSetup } from '@mcpkit/test-utils/postgres-setup';

export default postgresGlobalSetup('server-memory tests');
