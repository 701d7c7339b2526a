/** One in-process session of the server: the tool's answers, its errors and the history resource. */
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { expect } from 'vitest';
import { createSequentialThinkingServer, HISTORY_URI, type HistorySnapshot } from '../src/server.js';

export type Result = {
  thoughtNumber: number;
  totalThoughts: number;
  nextThoughtNeeded: boolean;
  branches: string[];
  thoughtHistoryLength: number;
};

export async function session(options: Parameters<typeof createSequentialThinkingServer>[0] = {}) {
  const pair = await connectInMemory(createSequentialThinkingServer(options));
  const think = async (args: Record<string, unknown>) => {
    const res = await pair.client.callTool({ name: 'sequentialthinking', arguments: args });
    return res;
  };
  const data = async (args: Record<string, unknown>) => {
    const res = await think(args);
    expect(res.isError).toBeFalsy();
    const text = (res.content as { type: string; text: string }[])[0]!.text;
    expect(JSON.parse(text)).toEqual(res.structuredContent);
    return res.structuredContent as Result;
  };
  const history = async () => {
    const read = await pair.client.readResource({ uri: HISTORY_URI });
    return JSON.parse((read.contents[0] as { text: string }).text) as HistorySnapshot;
  };
  const errorText = async (args: Record<string, unknown>) => {
    const res = await think(args);
    expect(res.isError).toBe(true);
    return (res.content as { text: string }[])[0]!.text;
  };
  return { pair, think, data, history, errorText, [Symbol.asyncDispose]: () => pair[Symbol.asyncDispose]() };
}

export const base = { thought: 'This is my first thought', thoughtNumber: 1, totalThoughts: 3, nextThoughtNeeded: true };
