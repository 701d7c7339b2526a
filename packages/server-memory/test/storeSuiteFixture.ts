/** What the `GraphStore` suite's cases share: the fixture a store's test file hands it, and the sample entities. */
import type { GraphStore } from '../src/server.js';

export interface StoreFixture extends AsyncDisposable {
  store: GraphStore;
  /** A second store over the same data as a fresh process would see it (stores without persistence: undefined). */
  reopen?: () => Promise<GraphStore>;
}

export const alice = { name: 'Alice', entityType: 'person', observations: ['works at Acme Corp'] };
export const bob = { name: 'Bob', entityType: 'person', observations: ['likes programming'] };
