import { createMemoryStore } from '../src/server.js';
import { testStore } from './storeSuite.js';

testStore('memory', async () => {
  const store = createMemoryStore();
  return { store, [Symbol.asyncDispose]: () => store.close() };
});
