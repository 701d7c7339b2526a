// @module-tag slow
import { describe } from 'vitest';
import { testAcceptance } from '../acceptanceSuite.js';
import { testStore } from '../storeSuite.js';
import { postgresFixture, postgresUrl } from './fixture.js';

const url = postgresUrl();
describe.skipIf(!url)('PostgreSQL store', () => {
  testStore('postgres', () => postgresFixture());
  testAcceptance('postgres', () => postgresFixture());
});
