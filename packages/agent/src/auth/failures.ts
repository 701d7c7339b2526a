/**
 * What a failed login says, in one line: the SDK's OAuth errors in words, nothing an attacker
 * wrote shown (a mix-up's `error_description`), no token ever (the SDK's messages carry none).
 */
import {
  AuthorizationServerMismatchError,
  InsecureTokenEndpointError,
  IssuerMismatchError,
  OAuthClientFlowError,
  OAuthError,
  RegistrationRejectedError,
} from '@modelcontextprotocol/client';
import { errorMessage, McpError } from '../errors.js';
import { errnoText, stripSdkPrefix } from '../mcp/messages.js';

function reason(error: unknown): string {
  if (IssuerMismatchError.isInstance(error)) {
    if (error.kind === 'metadata') {
      return `the authorization server's metadata names the issuer ${JSON.stringify(error.received ?? '')}, not ${JSON.stringify(error.expected ?? '')} (refused: credentials go only to the issuer the server names)`;
    }
    // `received` is the attacker's value in a mix-up: not shown.
    return 'the authorization response came from another authorization server than the one the login started with (refused)';
  }
  if (AuthorizationServerMismatchError.isInstance(error)) {
    return `the authorization server changed from ${error.recordedIssuer} to ${error.currentIssuer} during the login (refused); run the login again`;
  }
  if (InsecureTokenEndpointError.isInstance(error)) return `the token endpoint ${error.tokenEndpoint} is not https (refused)`;
  if (RegistrationRejectedError.isInstance(error)) return `the authorization server refused to register mcp-agent (HTTP ${error.status})`;
  if (OAuthError.isInstance(error)) return `the authorization server answered: ${stripSdkPrefix(error.message)}`;
  return errnoText(error) ?? stripSdkPrefix(errorMessage(error));
}

/** `login to "<name>" failed: <why>`, as an McpError (`SERVER_START_FAILED`). */
export function loginFailure(serverName: string, error: unknown): McpError {
  return new McpError('SERVER_START_FAILED', `login to "${serverName}" failed: ${reason(error)}`, { cause: error });
}

/** The reason alone (for a server that failed to connect over OAuth). */
export function authFailureReason(error: unknown): string {
  return reason(error);
}

/** The SDK's OAuth error in `error` or its causes (a flow error or the authorization server's answer), if any. */
export function oauthCause(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (OAuthClientFlowError.isInstance(current) || OAuthError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
