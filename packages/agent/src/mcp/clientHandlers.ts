/**
 * What the agent's MCP client answers when a server asks (elicitation, sampling, roots) and what it
 * does with what a server tells it (log messages, "my tools changed"). A capability is declared
 * only when there is something to serve it: a host that can ask the user, a sampling handler,
 * roots. A server never gets a request through to something the user did not set up.
 *
 * The same handlers serve both protocol eras: a 2025-11-25 server sends `elicitation/create`,
 * `sampling/createMessage` and `roots/list` as requests of its own; a 2026-07-28 server returns an
 * `input_required` result (MRTR) and the SDK client fulfils its embedded requests through these
 * very handlers before repeating the call. Either way the user sees the same form, approval and
 * sampling paths.
 */
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type Client,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  type ListRootsResult,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/client';
import { errorMessage, isMcpError } from '../errors.js';
import type { AgentHost } from '../host.js';
import type { SampleHandler } from '../sampling.js';

/** JSON-RPC code for "the user rejected the request" (the MCP spec's sampling example). */
const USER_REJECTED = -1;

/** An error the SDK sends back as `{ code, message }` (2025) or reports from the MRTR round (2026). */
function jsonRpcError(code: number, message: string): Error {
  return new ProtocolError(code, message);
}

/** What one server's client can serve, and where it reports. */
export interface ClientServices {
  /** The server's name from the config (passed to every host callback). */
  server: string;
  host?: AgentHost;
  /** Answers `sampling/createMessage`; absent: sampling is not offered. */
  sample?: SampleHandler;
  /** The current roots (directories); absent: roots are not offered. Read on every `roots/list`. */
  roots?: () => readonly string[];
  /** The server said its tools changed (`notifications/tools/list_changed`). */
  onToolListChanged?: () => void;
}

/** The capabilities to declare in `initialize`: only what `services` can actually serve. */
export function clientCapabilities(services: ClientServices): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (services.host?.elicit) capabilities.elicitation = { form: {} };
  if (services.sample) capabilities.sampling = {};
  if (services.roots) capabilities.roots = { listChanged: true };
  return capabilities;
}

/** Directories as MCP roots: `file://` URIs (absolute), named by their last segment. */
function rootsFromDirectories(directories: readonly string[]): ListRootsResult['roots'] {
  return directories.map((directory) => {
    const absolute = resolve(directory);
    return { uri: pathToFileURL(absolute).href, name: basename(absolute) || absolute };
  });
}

/**
 * Install the request and notification handlers on `client` (before it connects). The client must
 * have been created with `clientCapabilities(services)`: the SDK refuses a handler for a
 * capability that was not declared.
 */
/**
 * One server-to-client request (`elicitation/create`, `sampling/createMessage`, `roots/list`)
 * answered through the host: the form, the sampling approval, the roots list. The SDK's handlers
 * (2025 requests, 2026 MRTR rounds) and a task's `input_required` (`tasks/update`) all come here,
 * so the user sees one path whatever carried the request.
 * @throws ProtocolError what the server should be told (no way to ask, refused sampling, a failed form).
 */
export async function answerServerRequest(
  services: ClientServices,
  method: string,
  params: Record<string, unknown> | undefined,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const { server, host } = services;
  if (method === 'elicitation/create') {
    if (!host?.elicit) throw jsonRpcError(ProtocolErrorCode.InvalidRequest, 'Elicitation is not supported by this client');
    const request = (params ?? {}) as ElicitRequest['params'];
    // Only form mode is declared, so URL-mode requests are declined.
    if ((request as { mode?: unknown }).mode === 'url') {
      host.onNotice?.(`${server} asked to open a web page to go on; that is not supported here, so it was declined`);
      return { action: 'decline' };
    }
    try {
      return (await host.elicit(server, request)) as unknown as Record<string, unknown>;
    } catch (error) {
      throw jsonRpcError(ProtocolErrorCode.InternalError, `Elicitation failed: ${errorMessage(error)}`);
    }
  }
  if (method === 'sampling/createMessage') {
    const sample = services.sample;
    if (!sample) throw jsonRpcError(ProtocolErrorCode.InvalidRequest, 'Sampling is not supported by this client');
    try {
      return (await sample(server, (params ?? {}) as never, { signal })) as unknown as Record<string, unknown>;
    } catch (error) {
      const code = isMcpError(error, 'PERMISSION_DENIED') ? USER_REJECTED : ProtocolErrorCode.InternalError;
      throw jsonRpcError(code, `Sampling failed: ${errorMessage(error)}`);
    }
  }
  if (method === 'roots/list') {
    const roots = services.roots;
    if (!roots) throw jsonRpcError(ProtocolErrorCode.InvalidRequest, 'Roots are not supported by this client');
    return { roots: rootsFromDirectories(roots()) };
  }
  throw jsonRpcError(ProtocolErrorCode.MethodNotFound, `Unsupported request ${JSON.stringify(method.slice(0, 100))}`);
}

/**
 * Install the request and notification handlers on `client` (before it connects). The client must
 * have been created with `clientCapabilities(services)`: the SDK refuses a handler for a
 * capability that was not declared.
 */
export function installClientHandlers(client: Client, services: ClientServices): void {
  const { server, host } = services;

  if (host?.elicit) {
    client.setRequestHandler(
      'elicitation/create',
      async (request): Promise<ElicitResult> =>
        (await answerServerRequest(services, 'elicitation/create', request.params as never)) as unknown as ElicitResult,
    );
  }

  if (services.sample) {
    client.setRequestHandler(
      'sampling/createMessage',
      async (request, ctx) =>
        (await answerServerRequest(services, 'sampling/createMessage', request.params as never, ctx.mcpReq.signal)) as never,
    );
  }

  if (services.roots) {
    client.setRequestHandler(
      'roots/list',
      async (): Promise<ListRootsResult> => (await answerServerRequest(services, 'roots/list', undefined)) as unknown as ListRootsResult,
    );
  }

  client.setNotificationHandler('notifications/message', (notification) => {
    host?.onLog?.(server, notification.params.level, notification.params.data);
  });

  const onToolListChanged = services.onToolListChanged;
  if (onToolListChanged) client.setNotificationHandler('notifications/tools/list_changed', () => onToolListChanged());
}
