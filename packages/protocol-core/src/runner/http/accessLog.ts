/**
 * The HTTP runner's access log: one `info` line per HTTP request once its response is over (finished, or
 * cut off by the client), saying what was asked, by whom, how it was answered and how long it took:
 *
 *   access: POST /mcp method=tools/call tool=get-sum principal=alice status=200 time=3ms
 *
 * The principal is the verified token's subject (else its client id) when OAuth is on, `none` otherwise; a
 * token is never logged. Method and tool names come from the client: they are cut short and stripped of
 * anything but plain printable characters, so a request cannot forge or flood log lines. `/healthz` is logged
 * at `debug` (load balancers poll it). Only the HTTP transports log requests: stdio has none.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';

/** Longest method or tool name logged; a longer one is cut and ends with `…`. */
const MAX_NAME = 64;
/** Methods named for one batch; the rest are counted (`+3`). */
const MAX_BATCH_METHODS = 3;

/** What the runner learns of a request while it handles it. */
export interface AccessRecord {
  /** The parsed JSON-RPC body of a POST, once read. */
  body?: unknown;
}

function clean(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return undefined;
  const printable = name.slice(0, MAX_NAME * 2).replace(/[^\x21-\x7e]/g, '?');
  return printable.length > MAX_NAME ? `${printable.slice(0, MAX_NAME)}…` : printable;
}

function rpcFields(body: unknown): string[] {
  const messages = (Array.isArray(body) ? body : [body]).filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null);
  if (messages.length === 0) return [];
  const methods = messages.slice(0, MAX_BATCH_METHODS).map((m) => clean(m.method) ?? (m.id !== undefined ? 'response' : '?'));
  const more = messages.length > MAX_BATCH_METHODS ? `,+${messages.length - MAX_BATCH_METHODS}` : '';
  const fields = [`method=${methods.join(',')}${more}`];
  const tools = messages
    .filter((m) => m.method === 'tools/call')
    .slice(0, MAX_BATCH_METHODS)
    .map((m) => clean((m.params as { name?: unknown } | undefined)?.name) ?? '?');
  if (tools.length > 0) fields.push(`tool=${tools.join(',')}`);
  return fields;
}

function principal(req: IncomingMessage): string {
  const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
  if (!auth) return 'none';
  const subject = auth.extra?.subject;
  return clean(typeof subject === 'string' && subject ? subject : auth.clientId) ?? 'none';
}

/**
 * Starts the access log of one request: the line is written when `res` closes. Returns the record the
 * runner fills in as it learns more (the body). `now` is a millisecond clock (`performance.now`).
 */
export function logAccess(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  now: () => number = () => performance.now(),
): AccessRecord {
  const record: AccessRecord = {};
  const started = now();
  res.once('close', () => {
    const ms = Math.round(now() - started);
    const status = res.writableFinished ? String(res.statusCode) : `${res.headersSent ? res.statusCode : '-'} (cut off)`;
    const line = [
      `access: ${clean(req.method) ?? '?'} ${clean(pathname) ?? '/'}`,
      ...rpcFields(record.body),
      `principal=${principal(req)}`,
      `status=${status}`,
      `time=${ms}ms`,
    ].join(' ');
    if (pathname === '/healthz') logger.debug(line);
    else logger.info(line);
  });
  return record;
}
