import type { Stop } from '../stop.js';
import { sequentialThinking } from './sequentialThinking.js';

/** Every server on the tour, in order. */
export const stops: Stop[] = [sequentialThinking];
