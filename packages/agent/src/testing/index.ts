/**
 * @mcpkit/agent/testing: a scripted OpenAI-compatible model server for offline tests (no LLM needed).
 * Named exports only; everything here is public API of the `./testing` entry point.
 */
export { type ScriptedModel, type ScriptedModelOptions, startScriptedModel } from './scriptedModel.js';
export type {
  RecordedRequest,
  ScriptedDisconnect,
  ScriptedHttpError,
  ScriptedRawResponse,
  ScriptedReply,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedTurnSource,
} from './scriptedTurn.js';
