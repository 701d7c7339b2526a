import { describe, expect, it } from 'vitest';
import { createMemoryChains } from '../src/server.js';
import { chainStoreSuite } from './chainSuite.js';

chainStoreSuite('in-process', async (options) => createMemoryChains({ maxHistory: 1000, maxHistoryBytes: 1024 * 1024, ...options }));
