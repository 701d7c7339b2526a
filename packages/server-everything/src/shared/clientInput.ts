/**
 * Asking the client something mid-call (elicitation, sampling, roots) in both protocol eras.
 *
 * - A 2025-era session (`initialize`): the request goes to the client now, on the call's own stream
 *   (`extra.mcpReq.send`), exactly as before SDK v2; the answer is checked against the spec's result schema.
 * - A 2026-07-28 request (stateless, `server/discover`): there is no server→client request. The call answers
 *   `input_required` (MRTR, SEP-2322) with the questions and a sealed `requestState` naming the tool, a digest of
 *   its arguments and the questions asked; the client answers them and repeats the call with `inputResponses`
 *   and that state. Answers count only when the state verifies (the SDK runs the codec's `verify` before the
 *   handler: a tampered or expired state is a -32602 error) and names this very call; otherwise the questions
 *   are asked again, so a client cannot feed a tool answers to questions it was never asked.
 */
import type { RequestContext } from '@mcpkit/protocol-core';
import {
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} from '@modelcontextprotocol/core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  createRequestStateCodec,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  type ListRootsResult,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { createSpentStates, type SpentStates } from './spentStates.js';

/** One question for the client, as the 2025-era request carries it. */
type ClientAsk =
  | { method: 'elicitation/create'; params: ElicitRequestFormParams | ElicitRequestURLParams }
  /** `tools`: the answer may hold tool use (an array of content blocks), as SEP-1577 allows. */
  | { method: 'sampling/createMessage'; params: CreateMessageRequestParams; tools?: true }
  | { method: 'roots/list' };

type AnswerOf<A extends ClientAsk> = A extends { method: 'elicitation/create' }
  ? ElicitResult
  : A extends { method: 'sampling/createMessage'; tools: true }
    ? CreateMessageResultWithTools
    : A extends { method: 'sampling/createMessage' }
      ? CreateMessageResult
      : ListRootsResult;

type Answers<T extends Record<string, ClientAsk>> = { [K in keyof T]: AnswerOf<T[K]> };

/** The client's answers, or (2026-07-28) the `input_required` result the tool returns so that the client answers and retries. */
type ClientInput<T extends Record<string, ClientAsk>> = { answers: Answers<T> } | { inputRequired: InputRequiredResult };

/** What the sealed `requestState` of an everything tool says: this call (tool and argument digest) asked these questions. */
interface AskedState {
  tool: string;
  call: string;
  keys: string[];
}

/** The key of `requestState`'s HMAC: at least 32 bytes, shared by every process that may see a retry. */
type RequestStateKey = Uint8Array | string;

/** A key, or how to get it when the first state is sealed or checked (the CLI's one key per process). */
export type RequestStateKeySource = RequestStateKey | (() => RequestStateKey);

export interface ClientInputChannel {
  /**
   * Asks `asks` for the call of `tool` with `args` (the arguments bind the sealed state to this call). `options` go
   * to a 2025-era request (how long it waits for the answer, what cancels it).
   */
  ask<T extends Record<string, ClientAsk>>(
    extra: RequestContext,
    tool: string,
    args: unknown,
    asks: T,
    options?: { timeout?: number; signal?: AbortSignal },
  ): Promise<ClientInput<T>>;
  /** Seals another payload with the same key (multi-round tools whose state is more than "asked"). */
  mint(payload: unknown, ctx: ServerContext): Promise<string>;
  /** Whether this server answers a 2026-07-28 (or later) request rather than a 2025-era session. */
  modern(): boolean;
  /** What the client declared: in this request's `_meta` (2026-07-28), else in `initialize` (2025 era). */
  capabilities(extra?: RequestContext): ClientCapabilities;
}

/**
 * What the client of this request declared: a 2026-07-28 request carries it in its `_meta` (there is no
 * `initialize`); a 2025-era session declared it in `initialize` (empty before that).
 */
export function declaredCapabilities(server: McpServer, ctx: ServerContext | undefined): ClientCapabilities {
  const envelope = ctx?.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return declared ?? server.server.getClientCapabilities() ?? {};
}

function resultSchema(ask: ClientAsk) {
  switch (ask.method) {
    case 'elicitation/create':
      return ElicitResultSchema;
    case 'sampling/createMessage':
      return ask.tools ? CreateMessageResultWithToolsSchema : CreateMessageResultSchema;
    case 'roots/list':
      return ListRootsResultSchema;
  }
}

/** The request as the 2025-era client gets it (without this module's own fields). */
function requestOf(ask: ClientAsk): { method: string; params?: Record<string, unknown> } {
  return ask.method === 'roots/list' ? { method: ask.method } : { method: ask.method, params: ask.params };
}

/** Sealed state lives 10 minutes: long enough for a person to answer a form. */
const STATE_TTL_SECONDS = 600;

/**
 * Who a state belongs to: with OAuth on, the token's user (`extra.subject`, of `extra.issuer`) and its client;
 * without it, the 2025-era session (a 2026-07-28 request has none: over stdio one client owns the process).
 */
function statePrincipal(ctx: ServerContext): string {
  const auth = ctx.http?.authInfo;
  if (auth) {
    const extra = auth.extra ?? {};
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return JSON.stringify(['user', text(extra.issuer), text(extra.subject), auth.clientId]);
  }
  return JSON.stringify(['session', ctx.sessionId ?? '']);
}

/** What is sealed: the payload and a random nonce, by which a spent state is remembered. */
interface Sealed {
  n: string;
  p: unknown;
}

function isSealed(value: unknown): value is Sealed {
  return typeof (value as Sealed | undefined)?.n === 'string';
}

/**
 * The codec for one key (a random one of its own without `key`); state is bound to the method and the principal
 * (`statePrincipal`), and is single use: `verify` spends its nonce in `spent` (one ledger per server without it), so
 * the same state a second time is refused like a forged one. Every server that may see a retry must share `spent`,
 * as it shares the key. The SDK's codec takes Web Crypto when it is made, so it is made on the first sealed or
 * checked state: a server that never asks its client anything, and so every cold start, loads no crypto.
 */
export function createStateCodec(key?: RequestStateKeySource, spent: SpentStates = createSpentStates()): RequestStateCodec<unknown> {
  let codec: RequestStateCodec<unknown> | undefined;
  const made = () =>
    (codec ??= createRequestStateCodec<unknown>({
      key: typeof key === 'function' ? key() : (key ?? randomStateKey()),
      ttlSeconds: STATE_TTL_SECONDS,
      bind: (ctx) => `${ctx.mcpReq.method}\0${statePrincipal(ctx)}`,
    }));
  return {
    mint: async (payload, ctx) => made().mint({ n: nonce(), p: payload } satisfies Sealed, ctx),
    async verify(state, ctx) {
      const sealed = await made().verify(state, ctx);
      if (!isSealed(sealed)) throw new Error('malformed');
      // Verified (sealed by this key, unexpired, this principal): it now answers this round and no other.
      if (!spent.spend(sealed.n, Date.now() + STATE_TTL_SECONDS * 1000)) throw new Error('replayed');
      return sealed.p;
    },
  };
}

function nonce(): string {
  return process.getBuiltinModule('node:crypto').randomBytes(16).toString('base64url');
}

/** A random key for one process (or one server, when nothing else can see its retries). */
function randomStateKey(): Uint8Array {
  return new Uint8Array(process.getBuiltinModule('node:crypto').randomBytes(32));
}

/** One random key, made on first use: the CLI's key for every server of the process. */
export function randomStateKeyOnce(): () => Uint8Array {
  let key: Uint8Array | undefined;
  return () => (key ??= randomStateKey());
}

function digest(args: unknown): string {
  return process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(JSON.stringify(args ?? {}))
    .digest('base64url')
    .slice(0, 22);
}

function embedded(ask: ClientAsk): InputRequest {
  switch (ask.method) {
    case 'elicitation/create':
      if (ask.params.mode === 'url') return inputRequired.elicitUrl({ message: ask.params.message, url: ask.params.url });
      return inputRequired.elicit({ message: ask.params.message, requestedSchema: ask.params.requestedSchema });
    case 'sampling/createMessage':
      return inputRequired.createMessage(ask.params);
    case 'roots/list':
      return inputRequired.listRoots();
  }
}

function isAskedState(value: unknown): value is AskedState {
  const s = value as AskedState | undefined;
  return typeof s?.tool === 'string' && typeof s.call === 'string' && Array.isArray(s.keys);
}

/**
 * The channel for one server. `codec` seals `requestState`; the server must have been created with its `verify` as
 * `requestState.verify` (`createStateCodec(key)`, then `createMcpServer(…, { requestState: { verify: codec.verify } })`).
 * A 2026-07-28 request gets a fresh server, so every server of a process must share the key (the CLI makes one per
 * process); a random key per server is enough only where one server sees every round (a 2025-era session, a test).
 */
export function createClientInput(server: McpServer, codec: RequestStateCodec<unknown>): ClientInputChannel {
  const modern = () => {
    const version = server.server.getNegotiatedProtocolVersion();
    return version !== undefined && version >= '2026-07-28';
  };

  /**
   * The verified payload of the retry's state. The SDK has verified it already when the server was created with the
   * codec's `verify` hook (the accessor then gives the payload); otherwise the accessor gives the string as sent and
   * it is verified here, with the SDK's answer to a bad one.
   */
  async function stateOf(ctx: ServerContext): Promise<unknown> {
    const state = ctx.mcpReq.requestState<unknown>();
    if (typeof state !== 'string') return state;
    try {
      return await codec.verify(state, ctx);
    } catch {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', { reason: 'invalid_request_state' });
    }
  }

  async function answered<T extends Record<string, ClientAsk>>(ctx: ServerContext, tool: string, call: string, asks: T) {
    const state = await stateOf(ctx);
    if (!isAskedState(state) || state.tool !== tool || state.call !== call) return undefined;
    const keys = Object.keys(asks);
    if (state.keys.length !== keys.length || !keys.every((k) => state.keys.includes(k))) return undefined;
    const answers: Record<string, unknown> = {};
    for (const [k, ask] of Object.entries(asks)) {
      const parsed = resultSchema(ask).safeParse(ctx.mcpReq.inputResponses?.[k]);
      if (!parsed.success) return undefined;
      answers[k] = parsed.data;
    }
    return answers as Answers<T>;
  }

  return {
    modern,
    capabilities: (extra) => declaredCapabilities(server, extra),
    mint: (payload, ctx) => codec.mint(payload, ctx),
    async ask(extra, tool, args, asks, options) {
      if (!modern()) {
        const answers: Record<string, unknown> = {};
        for (const [k, ask] of Object.entries(asks)) {
          answers[k] = await extra.mcpReq.send(requestOf(ask), resultSchema(ask), options);
        }
        return { answers: answers as Answers<typeof asks> };
      }
      const call = digest(args);
      const answers = await answered(extra, tool, call, asks);
      if (answers) return { answers };
      const inputRequests = Object.fromEntries(Object.entries(asks).map(([k, ask]) => [k, embedded(ask)]));
      const requestState = await codec.mint({ tool, call, keys: Object.keys(asks) } satisfies AskedState, extra);
      return { inputRequired: inputRequired({ inputRequests, requestState }) };
    },
  };
}
