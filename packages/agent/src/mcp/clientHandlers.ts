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
export function rootsFromDirectories(directories: readonly string[]): ListRootsResult['roots'] {
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
export function installClientHandlers(client: Client, services: ClientServices): void {
  const { server, host } = services;

  if (host?.elicit) {
    const elicit = host.elicit.bind(host);
    client.setRequestHandler('elicitation/create', async (request): Promise<ElicitResult> => {
      const { params } = request;
      // Only form mode is declared, so the SDK turns URL-mode requests away before they get here;
      // this is the fallback should one get through.
      if (params.mode === 'url') {
        host.onNotice?.(`${server} asked to open a web page to go on; that is not supported here, so it was declined`);
        return { action: 'decline' };
      }
      try {
        return await elicit(server, params);
      } catch (error) {
        throw jsonRpcError(ProtocolErrorCode.InternalError, `Elicitation failed: ${errorMessage(error)}`);
      }
    });
  }

  const sample = services.sample;
  if (sample) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
      try {
        return await sample(server, request.params, { signal: ctx.mcpReq.signal });
      } catch (error) {
        const code = isMcpError(error, 'PERMISSION_DENIED') ? USER_REJECTED : ProtocolErrorCode.InternalError;
        throw jsonRpcError(code, `Sampling failed: ${errorMessage(error)}`);
      }
    });
  }

  const roots = services.roots;
  if (roots) {
    client.setRequestHandler('roots/list', async () => ({ roots: rootsFromDirectories(roots()) }));
  }

  client.setNotificationHandler('notifications/message', (notification) => {
    host?.onLog?.(server, notification.params.level, notification.params.data);
  });

  const onToolListChanged = services.onToolListChanged;
  if (onToolListChanged) client.setNotificationHandler('notifications/tools/list_changed', () => onToolListChanged());
}
