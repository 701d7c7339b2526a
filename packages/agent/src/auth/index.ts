/**
 * OAuth for the agent's HTTP servers: the token store, the provider the SDK drives, login,
 * step-up and logout. Named exports only; everything here is public API.
 */
export { DEFAULT_LOGIN_TIMEOUT_MS } from './callback.js';
export { type LoginOptions, type LoginResult, login, type ScopeChallenge, stepUp } from './login.js';
export { isLoginRequired, LoginRequiredError, loginRequiredMessage } from './loginRequired.js';
export { type LogoutOptions, type LogoutResult, logout } from './logout.js';
export { CONFIG_DIR_ENV, defaultConfigDir } from './paths.js';
export {
  type AgentOAuthProvider,
  createOAuthProvider,
  type OAuthProviderOptions,
  type OpenUrl,
  providerOptionsFor,
} from './provider.js';
export { hasStaticCredential, type ServerAuthState, storedAuthState, usesOAuth } from './status.js';
export { canonicalServerUrl, createTokenStore, type StoredServerAuth, type TokenStore, type TokenStoreKey } from './store.js';
