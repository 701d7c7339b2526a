/**
 * Host names and `--allowed-host` entries, apart from the request checks in security.ts (which need
 * node:crypto): the CLI parses `--allowed-host` at start-up, and a stdio server never loads the rest.
 */

/** The host name as `URL` normalises it (lower case, IPv6 in brackets), or undefined when it is not one. */
export function normalHostname(name: string): string | undefined {
  if (name === '' || /[@/?#\\\s]/.test(name)) return undefined;
  try {
    return new URL(`http://${name}`).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** Splits `name[:port]`, `[v6][:port]` or a bare IPv6 address (which has no port). */
function splitHostPort(text: string): { name: string; port?: string } {
  if (text.startsWith('[')) {
    const end = text.indexOf(']') + 1;
    const rest = text.slice(end);
    if (end === 0 || (rest !== '' && !rest.startsWith(':'))) return { name: '' };
    return rest === '' ? { name: text } : { name: text.slice(0, end), port: rest.slice(1) };
  }
  if (text.split(':').length > 2) return { name: `[${text}]` };
  const colon = text.indexOf(':');
  return colon < 0 ? { name: text } : { name: text.slice(0, colon), port: text.slice(colon + 1) };
}

/**
 * Parses one `--allowed-host` entry: `name` (any port), `name:port` (that port only), `[v6]`,
 * `[v6]:port` or a bare IPv6 address (any port). Throws an Error saying what is wrong.
 */
export function parseAllowedHost(entry: string): { hostname: string; port?: number } {
  const { name, port: rawPort } = splitHostPort(entry.trim());
  const hostname = normalHostname(name);
  if (!hostname) throw new Error(`"${entry}" is not a host name or name:port`);
  if (rawPort === undefined) return { hostname };
  const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : 0;
  if (port < 1 || port > 65535) throw new Error(`"${entry}" has an invalid port (1..65535)`);
  return { hostname, port };
}
