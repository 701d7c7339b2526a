import ipaddr from 'ipaddr.js';

/**
 * Which destinations the server may connect to (SSRF policy). By default only public unicast
 * addresses: loopback, RFC 1918, link-local, CGNAT, unspecified, multicast, broadcast, reserved,
 * unique-local and every IPv6 form that embeds an IPv4 address (mapped, NAT64, 6to4, Teredo) are
 * refused, and cloud metadata endpoints always are unless named with `--allow-host`.
 */

export interface AllowedHost {
  /** Lower-case host name, or a canonical IP address (IPv6 without brackets). */
  host: string;
  /** Only this port (the scheme's default port when the URL has none); any port when absent. */
  port?: number;
}

export interface NetworkPolicy {
  allowPrivateNetwork: boolean;
  allowHosts: readonly AllowedHost[];
  /** Who refuses, in refusal messages (`mcp-server-fetch blocks private, …`). Default `this server`. */
  name?: string;
}

/** The name refusal messages use when the policy has none. */
export const DEFAULT_POLICY_NAME = 'this server';

/** How strictly a connection to one host is checked: the agent used for it validates accordingly. */
export type Strictness = 'public-only' | 'no-metadata' | 'open';

/** Host names of cloud metadata services (they resolve to the addresses below). */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** AWS/GCP/Azure (169.254.169.254), AWS ECS task metadata, AWS IMDS over IPv6, Alibaba, Oracle. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200', '192.0.0.192']);

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10)',
  private: 'a private (RFC 1918)',
  reserved: 'a reserved',
  uniqueLocal: 'a unique-local (fc00::/7)',
  ipv4Mapped: 'an IPv4-mapped IPv6',
  rfc6145: 'an IPv4-translated IPv6',
  rfc6052: 'a NAT64 (IPv4-embedding IPv6)',
  '6to4': 'a 6to4 (IPv4-embedding IPv6)',
  teredo: 'a Teredo (IPv4-embedding IPv6)',
  deprecatedSiteLocal: 'a site-local IPv6',
};

/** An address the policy refuses: the message says why and how to allow it. */
export class BlockedDestinationError extends Error {
  override readonly name = 'BlockedDestinationError';
  readonly code = 'ERR_MCPKIT_FETCH_BLOCKED';
  constructor(
    message: string,
    readonly host: string,
    readonly address: string | undefined,
  ) {
    super(message);
  }
}

/** Parses an IP literal (IPv6 with or without brackets); `undefined` for a host name. */
export function parseIp(host: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (!ipaddr.isValid(bare)) return undefined;
  // ipaddr accepts shorthand IPv4 ("127.1"); only strict forms count here, the URL parser has already
  // turned decimal, octal and hex spellings into dotted quads.
  if (bare.includes(':')) return ipaddr.IPv6.parse(bare);
  return ipaddr.IPv4.isValidFourPartDecimal(bare) ? ipaddr.IPv4.parse(bare) : undefined;
}

/** Canonical text of an address (IPv6 compressed, lower-case). */
function canonical(ip: ipaddr.IPv4 | ipaddr.IPv6): string {
  return ip.toString();
}

/** `undefined` when the address is public unicast, else a phrase naming its kind. */
function nonPublicKind(ip: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  const range = ip.range();
  if (ip.kind() === 'ipv6') {
    // Global unicast is 2000::/3; everything else (including IPv4-compatible ::a.b.c.d) is not public.
    const first = (ip as ipaddr.IPv6).parts[0] ?? 0;
    if (range === 'unicast' && first >= 0x2000 && first <= 0x3fff) return undefined;
    return RANGE_NAMES[range] ?? (range === 'unicast' ? 'a non-global IPv6' : `a special-purpose (${range})`);
  }
  if (range === 'unicast') return undefined;
  return RANGE_NAMES[range] ?? `a special-purpose (${range})`;
}

function isMetadataAddress(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (METADATA_ADDRESSES.has(canonical(ip))) return true;
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    return METADATA_ADDRESSES.has((ip as ipaddr.IPv6).toIPv4Address().toString());
  }
  return false;
}

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/** `host` or `host:port` for messages and `--allow-host` hints (IPv6 in brackets). */
function hostPort(host: string, port: number | undefined): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return port ? `${h}:${port}` : h;
}

/** The host of a URL in the form `AllowedHost.host` uses. */
export function urlHost(url: URL): string {
  const ip = parseIp(url.hostname);
  return ip ? canonical(ip) : url.hostname.toLowerCase().replace(/\.$/, '');
}

export function urlPort(url: URL): number {
  return url.port ? Number(url.port) : defaultPort(url.protocol);
}

/**
 * Parses `HOST`, `HOST:PORT`, `[IPv6]` or `[IPv6]:PORT` (a bare IPv6 address also works).
 * Host names are lower-cased and IDNA-encoded, IPv4 spellings (`0x7f.1`) normalised, like URLs.
 */
export function parseAllowHost(raw: string): AllowedHost {
  const value = raw.trim();
  if (!value) throw new Error('must not be empty');
  let hostPart = value;
  let portPart: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) {
    hostPart = `[${bracketed[1]}]`;
    portPart = bracketed[2];
  } else if ((value.match(/:/g) ?? []).length === 1) {
    [hostPart, portPart] = value.split(':') as [string, string];
    if (!/^\d+$/.test(portPart)) throw new Error(`"${raw}" has an invalid port`);
  } else if (value.includes(':')) {
    hostPart = `[${value}]`;
  }
  let parsed: URL;
  try {
    parsed = new URL(`http://${hostPart}/`);
  } catch {
    throw new Error(`"${raw}" is not a host name or IP address (expected HOST or HOST:PORT)`);
  }
  if (parsed.pathname !== '/' || parsed.username || parsed.search)
    throw new Error(`"${raw}" is not a host name or IP address (expected HOST or HOST:PORT)`);
  const host = urlHost(parsed);
  if (portPart === undefined) return { host };
  const port = Number(portPart);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`"${raw}" has an invalid port (1..65535)`);
  return { host, port };
}

function isAllowedHost(policy: NetworkPolicy, host: string, port: number): boolean {
  return policy.allowHosts.some((a) => a.host === host && (a.port === undefined || a.port === port));
}

/** How connections to this URL's host are checked. */
export function strictnessFor(policy: NetworkPolicy, url: URL): Strictness {
  if (isAllowedHost(policy, urlHost(url), urlPort(url))) return 'open';
  return policy.allowPrivateNetwork ? 'no-metadata' : 'public-only';
}

function refusal(host: string, port: number, address: string | undefined, kind: string, name: string): BlockedDestinationError {
  const what = address && address !== host ? `${host} resolves to ${address}, ${kind} address` : `${address ?? host} is ${kind} address`;
  const metadata = kind === 'a cloud metadata';
  const how = metadata
    ? `to allow it, start the server with --allow-host ${hostPort(host, port)} (--allow-private-network does not cover metadata endpoints)`
    : `to allow it, start the server with --allow-host ${hostPort(host, port)} (this host only) or --allow-private-network (all private addresses)`;
  return new BlockedDestinationError(
    `refused to connect: ${what}. ${name} blocks private, loopback, link-local and cloud metadata destinations by default to prevent server-side request forgery; ${how}.`,
    host,
    address,
  );
}

/**
 * Checks a URL before any connection: the host name (metadata names) or the IP literal. Host names
 * are checked again, address by address, when they are resolved for the connection.
 */
export function checkUrl(policy: NetworkPolicy, url: URL): void {
  const strictness = strictnessFor(policy, url);
  if (strictness === 'open') return;
  const host = urlHost(url);
  const port = urlPort(url);
  const ip = parseIp(url.hostname);
  if (!ip) {
    if (METADATA_HOSTS.has(host)) throw refusal(host, port, undefined, 'a cloud metadata', policy.name ?? DEFAULT_POLICY_NAME);
    return;
  }
  checkAddress(strictness, host, port, ip, policy.name);
}

/** Names that mean this machine whatever DNS says: RFC 6761 `localhost` (and `*.localhost`) and common aliases. */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

/**
 * Through a proxy, the proxy resolves host names (a network whose only DNS is behind the proxy must
 * work), so a name cannot be checked address by address here. What can be checked still is: IP
 * literals and metadata names (`checkUrl`), and loopback names, refused here.
 */
export function checkProxiedName(policy: NetworkPolicy, url: URL): void {
  if (strictnessFor(policy, url) !== 'public-only' || parseIp(url.hostname)) return;
  const host = urlHost(url);
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost'))
    throw refusal(host, urlPort(url), undefined, 'a loopback', policy.name ?? DEFAULT_POLICY_NAME);
}

/** Throws when `strictness` refuses the address `ip` that `host` resolved to; `name` is who refuses, in the message. */
export function checkAddress(
  strictness: Strictness,
  host: string,
  port: number,
  ip: ipaddr.IPv4 | ipaddr.IPv6,
  name: string = DEFAULT_POLICY_NAME,
): void {
  if (strictness === 'open') return;
  const address = canonical(ip);
  if (isMetadataAddress(ip)) throw refusal(host, port, address, 'a cloud metadata', name);
  if (strictness === 'no-metadata') return;
  const kind = nonPublicKind(ip);
  if (kind) throw refusal(host, port, address, kind, name);
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (injectable: tests map names to 127.0.0.1). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | ResolvedAddress[], family?: number) => void;

/**
 * A `net.connect` lookup that resolves once, refuses the host when any of its addresses is not
 * allowed, and hands the socket exactly the addresses it checked: there is no second resolution an
 * attacker's DNS could answer differently (no DNS-rebinding gap). `name` is who refuses, in the message.
 */
export function guardedLookup(strictness: Strictness, resolve: Resolver, name: string = DEFAULT_POLICY_NAME) {
  return (hostname: string, options: { all?: boolean; family?: number | string } | number, callback: LookupCallback): void => {
    const raw = typeof options === 'number' ? { family: options } : (options ?? {});
    const family = raw.family === 'IPv4' || raw.family === 4 ? 4 : raw.family === 'IPv6' || raw.family === 6 ? 6 : 0;
    const opts = { all: 'all' in raw ? raw.all : false, family };
    resolve(hostname).then(
      (resolved) => {
        const host = hostname.toLowerCase().replace(/\.$/, '');
        let addresses = resolved;
        if (opts.family === 4 || opts.family === 6) addresses = addresses.filter((a) => a.family === opts.family);
        if (addresses.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          callback(error, opts.all ? [] : '', 0);
          return;
        }
        try {
          if (strictness !== 'open' && METADATA_HOSTS.has(host)) throw refusal(host, 0, undefined, 'a cloud metadata', name);
          for (const a of addresses) {
            const ip = parseIp(a.address);
            if (!ip)
              throw new BlockedDestinationError(
                `refused to connect: ${host} resolved to "${a.address}", which is not an IP address.`,
                host,
                a.address,
              );
            checkAddress(strictness, host, 0, ip, name);
          }
        } catch (error) {
          callback(error as NodeJS.ErrnoException, opts.all ? [] : '', 0);
          return;
        }
        if (opts.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, opts.all ? [] : '', 0),
    );
  };
}
