import type { Stop } from '../stop.js';
import { fetchStop } from './fetch.js';
import { memory } from './memory.js';
import { sequentialThinking } from './sequentialThinking.js';

/** Every server on the tour, in order. */
export const stops: Stop[] = [sequentialThinking, memory, fetchStop];
