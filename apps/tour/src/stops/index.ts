import type { StandaloneStop, Stop } from '../stop.js';
import { agent } from './agent.js';
import { fetchStop } from './fetch.js';
import { git } from './git.js';
import { memory } from './memory.js';
import { sequentialThinking } from './sequentialThinking.js';

/** Every server on the tour, in order. */
// biome-ignore lint/suspicious/noExplicitAny: each stop has its own state type; the tour only passes it through.
export const stops: (Stop<any> | StandaloneStop)[] = [sequentialThinking, memory, fetchStop, git, agent];
