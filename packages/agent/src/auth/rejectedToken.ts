/**
 * A token the server refuses may mean the server moved to another authorization server (SEP-2352):
 * its protected resource metadata now names a new one, while the provider still holds the
 * discovery of the old one and would send the SDK's `auth()` back there. The SDK leaves it to the
 * host to forget that discovery ("on repeated 401s"); this does it on the first 401 to a request
 * that carried a bearer token, before the transport runs `auth()` for that 401. `auth()` then reads
 * the server's metadata again; tokens and a registration stamped with another issuer read back as
 * absent there (the SDK's issuer check), while a token refresh at the same authorization server
 * still works (an expired access token is no reason to log in again).
 */
import type { FetchLike, OAuthClientProvider } from '@modelcontextprotocol/client';

/** True when the request carried `Authorization: Bearer …` (a `Basic` client secret is not a token). */
function carriedBearer(input: string | URL | Request, init: RequestInit | undefined): boolean {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  return /^bearer\s/i.test(headers.get('authorization') ?? '');
}

/** `fetch` for a transport with `provider`: a 401 to a request with a token drops the stored discovery first. */
export function forgetDiscoveryOnRejectedToken(provider: OAuthClientProvider, base: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.status === 401 && carriedBearer(input, init)) await provider.invalidateCredentials?.('discovery');
    return response;
  };
}
