import { fetchTool } from './fetch.js';

export type { FetchContext } from './fetch.js';
export const tools = [fetchTool];
