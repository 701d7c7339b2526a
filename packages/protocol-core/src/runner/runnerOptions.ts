import { authOptions } from '../auth/options.js';
import { type ConfigOf, defineOptions, parse } from '../config.js';
import { LOG_FORMATS, LOG_LEVEL_ALIASES, LOG_LEVELS } from '../logger.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from './drain.js';
import { parseAllowedHost } from './hosts.js';

/** The runner's own flags (transport, HTTP limits, logging, shutdown), merged into every bin's options by `runCli`. */
/** The flags every mcpkit bin understands, besides its own. */
export const runnerOptions = defineOptions({
  transport: {
    type: 'string',
    env: 'MCP_TRANSPORT',
    valueName: 'stdio|http|sse|ws',
    description:
      'How clients connect: stdio, Streamable HTTP at /mcp, legacy HTTP+SSE at /sse, or WebSocket at /mcp (subprotocol mcp; not an MCP specification transport)',
    default: 'stdio',
    parse: parse.oneOf(['stdio', 'http', 'sse', 'ws'] as const, { ignoreCase: true }),
  },
  host: {
    type: 'string',
    env: 'MCP_HOST',
    valueName: 'address',
    description: 'Address to bind for http/sse/ws; anything but loopback exposes the server to the network',
    default: '127.0.0.1',
    parse: parse.nonEmpty,
  },
  port: {
    type: 'string',
    env: 'PORT',
    valueName: 'number',
    description: 'Port for http/sse/ws (0 picks a free one); PORT is read only for http/sse/ws, and a bad PORT is ignored with a warning',
    default: 3000,
    parse: parse.int({ min: 0, max: 65535 }),
    sharedEnv: true,
  },
  stateless: {
    type: 'boolean',
    env: 'MCP_STATELESS',
    description: 'Streamable HTTP without sessions: a fresh server for every request',
  },
  'auth-token': {
    type: 'string',
    env: 'MCP_AUTH_TOKEN',
    valueName: 'token',
    description: 'Require "Authorization: Bearer <token>" on http/sse requests and ws upgrades',
    parse: parse.nonEmpty,
  },
  ...authOptions,
  'allowed-host': {
    type: 'string',
    multiple: true,
    env: 'MCP_ALLOWED_HOSTS',
    valueName: 'name[:port]',
    description: 'Extra Host to accept (for a reverse proxy); without a port, on any port',
    parse: (raw) => {
      parseAllowedHost(raw);
      return raw;
    },
  },
  'allowed-origin': {
    type: 'string',
    multiple: true,
    env: 'MCP_ALLOWED_ORIGINS',
    valueName: 'origin',
    description: 'Extra browser Origin to accept, e.g. https://app.example.com; a loopback origin on another port needs one too',
    parse: parse.nonEmpty,
  },
  'max-sessions': {
    type: 'string',
    env: 'MCP_MAX_SESSIONS',
    valueName: 'n',
    description: 'Live HTTP sessions at most; when full, a new one reclaims an idle session (60s+, or its client left), else 503',
    default: 100,
    parse: parse.int({ min: 1, max: 100_000 }),
  },
  'max-listens': {
    type: 'string',
    env: 'MCP_MAX_LISTENS',
    valueName: 'n',
    description:
      'Open subscriptions/listen streams (2026-07-28, HTTP) at most; when full, a new one takes the slot of one whose client is gone, else of the oldest of the principal holding the most',
    default: 1024,
    parse: parse.int({ min: 1, max: 100_000 }),
  },
  'max-listens-per-principal': {
    type: 'string',
    env: 'MCP_MAX_LISTENS_PER_PRINCIPAL',
    valueName: 'n',
    description: 'Open subscriptions/listen streams of one principal (OAuth subject, else client address) at most; one more is refused',
    default: 16,
    parse: parse.int({ min: 1, max: 100_000 }),
  },
  'session-timeout': {
    type: 'string',
    env: 'MCP_SESSION_TIMEOUT',
    valueName: 'duration',
    description: 'Close an HTTP session idle this long (e.g. 30m, 90s); one unused since initialize closes after 60s, or this if shorter',
    default: 30 * 60_000,
    defaultLabel: '30m',
    parse: parse.duration,
  },
  'shutdown-grace': {
    type: 'string',
    env: 'MCP_SHUTDOWN_GRACE',
    valueName: 'duration',
    description:
      'On SIGTERM/SIGINT, how long calls in flight may take to finish (new ones get 503, /readyz fails at once) before the server exits; a second signal exits at once',
    default: DEFAULT_SHUTDOWN_GRACE_MS,
    defaultLabel: '30s',
    parse: parse.duration,
  },
  'max-body': {
    type: 'string',
    env: 'MCP_MAX_BODY',
    valueName: 'size',
    description: 'Largest HTTP request body accepted (e.g. 4mb)',
    default: 4 * 1024 * 1024,
    defaultLabel: '4mb',
    parse: parse.bytes,
  },
  'request-timeout': {
    type: 'string',
    env: 'MCP_REQUEST_TIMEOUT',
    valueName: 'duration',
    description:
      'Time a client has to send an HTTP request (its headers: 10s, or this if shorter); slower ones get 408. Responses and SSE streams are not limited',
    default: 60_000,
    defaultLabel: '60s',
    parse: parse.duration,
  },
  'log-level': {
    type: 'string',
    env: 'LOG_LEVEL',
    valueName: LOG_LEVELS.join('|'),
    description:
      'What the server logs to stderr (any case; trace, warning, fatal, off are accepted too); a bad LOG_LEVEL is ignored with a warning',
    default: 'info',
    parse: parse.oneOf(LOG_LEVELS, { ignoreCase: true, aliases: LOG_LEVEL_ALIASES }),
    sharedEnv: true,
  },
  'log-format': {
    type: 'string',
    env: 'MCP_LOG_FORMAT',
    valueName: LOG_FORMATS.join('|'),
    description: "How log lines look: text, or json (one object per line, for log shippers); a request's lines carry its id",
    default: 'text',
    parse: parse.oneOf(LOG_FORMATS, { ignoreCase: true }),
  },
  help: { type: 'boolean', short: 'h', description: 'Show this help and exit' },
  version: { type: 'boolean', short: 'V', description: 'Show the version and exit' },
});

export type RunnerConfig = ConfigOf<typeof runnerOptions>;
