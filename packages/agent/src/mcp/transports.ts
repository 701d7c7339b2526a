/**
 * The SDK transports for a `ServerConfig`: a child process over stdio (its stderr read line by
 * line), Streamable HTTP, or legacy HTTP+SSE.
 */
import type { Stream } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { type OAuthClientProvider, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { forgetDiscoveryOnRejectedToken } from '../auth/rejectedToken.js';
import { createStderrTail, type StderrSummary } from './stderrSummary.js';
import type { HttpServerConfig, StdioServerConfig } from './types.js';

/** A line longer than this is passed on in pieces (a server dumping a blob on stderr). */
const MAX_LINE = 64 * 1024;

/** A stdio transport and what its child last said on stderr. */
export interface StdioTransportHandle {
  transport: StdioClientTransport;
  /** What stderr says so far, for error messages: a thrown error's message, else the last line. */
  stderrSummary(): StderrSummary | undefined;
}

/** Calls `onLine` for every non-blank line of `stream` (the last one even without a newline). */
function readLines(stream: Stream, onLine: (line: string) => void): void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const emit = (line: string) => {
    const text = line.replace(/\r$/, '');
    if (text.trim() !== '') onLine(text);
  };
  stream.on('data', (chunk: Buffer | string) => {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) emit(line);
    while (pending.length > MAX_LINE) {
      emit(pending.slice(0, MAX_LINE));
      pending = pending.slice(MAX_LINE);
    }
  });
  stream.on('end', () => {
    emit(pending + decoder.end());
    pending = '';
  });
  stream.on('error', () => {});
}

/**
 * The child process transport: the SDK's safe default environment plus `config.env`, stderr piped
 * and handed to `onStderrLine` line by line (and always read, so a chatty child never blocks).
 */
export function stdioTransport(config: StdioServerConfig, onStderrLine: (line: string) => void): StdioTransportHandle {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...getDefaultEnvironment(), ...config.env },
    cwd: config.cwd,
    stderr: 'pipe',
  });
  const tail = createStderrTail();
  const stderr = transport.stderr;
  if (stderr) {
    readLines(stderr, (line) => {
      tail.push(line);
      onStderrLine(line);
    });
  }
  return { transport, stderrSummary: () => tail.summary() };
}

function requestInit(config: HttpServerConfig): RequestInit {
  return { headers: { ...config.headers } };
}

/**
 * A Streamable HTTP transport to `config.url`, sending `config.headers` on every request; with
 * `authProvider`, OAuth tokens too (refreshed by the SDK on a 401, after the stored discovery was
 * dropped: the server may name another authorization server now). A 403 `insufficient_scope`
 * is thrown (`InsufficientScopeError`), not re-authorized by the transport: the agent asks the
 * user for the wider scope itself, once.
 */
export function streamableHttpTransport(config: HttpServerConfig, authProvider?: OAuthClientProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: requestInit(config),
    ...(authProvider ? { authProvider, fetch: forgetDiscoveryOnRejectedToken(authProvider), onInsufficientScope: 'throw' as const } : {}),
  });
}

/** A legacy HTTP+SSE transport to `config.url` (the SSE endpoint), sending `config.headers` (and OAuth tokens) on every request. */
export function sseTransport(config: HttpServerConfig, authProvider?: OAuthClientProvider): SSEClientTransport {
  return new SSEClientTransport(new URL(config.url), {
    requestInit: requestInit(config),
    ...(authProvider ? { authProvider, fetch: forgetDiscoveryOnRejectedToken(authProvider) } : {}),
  });
}
