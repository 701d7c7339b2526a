/**
 * `@mcpkit/protocol-core/low-level`: what a server built like a reference on the SDK's low-level `Server` needs
 * and every other server does not (today server-everything alone): hand-written handlers for spec methods
 * (capped like the wrappers' answers), tool listings given as JSON Schemas (`defineTool`'s `listing`, with
 * `registerTools(…, { wire: 'low-level' })`), and ending a request's SSE stream for a resumption test.
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */
export type { JsonSchemaObject, ToolListing } from './lowLevelTools.js';
export { type RawRequestHandler, setRawRequestHandler } from './rawHandlers.js';
export { type ClosableStreamsTransport, type CloseRequestStreamOptions, closeRequestStream } from './resumable.js';
