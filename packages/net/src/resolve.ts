import { lookup } from 'node:dns/promises';
import type { Resolver } from './policy.js';

/** The system resolver (`getaddrinfo`), every address in the order it gives them. */
export const systemResolver: Resolver = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};
