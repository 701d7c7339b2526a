import type { AuthGuard } from '../auth/guard.js';
import type { ScopeDeclaration } from '../auth/scopes.js';

export interface AuthGuardForOptions {
  /** The app's OAuth scopes (`ServerApp.scopes`), as the runner passes them. */
  scopes?: ScopeDeclaration;
  /** Where the client credentials come from (the runner reads them from the environment only). Default `{}`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The OAuth guard the runner puts in front of an app whose bin got `flags` (`--oauth-issuer <url>
 * --oauth-audience <resource>` …), for `startHttp(app, { auth })`: an in-process server behind the same checks
 * as the bin. Closed by the runner when the server closes.
 */
export async function authGuardFor(flags: readonly string[], { scopes, env = {} }: AuthGuardForOptions = {}): Promise<AuthGuard> {
  const [{ parseAuthConfig }, { createAuthGuard }] = await Promise.all([import('../auth/options.js'), import('../auth/guard.js')]);
  const config = parseAuthConfig(flags, env);
  if (!config) throw new Error('authGuardFor: the flags name no --oauth-issuer');
  return createAuthGuard(config, scopes ? { scopes } : {});
}
