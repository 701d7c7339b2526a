import { serverConfig } from '../../tsup.server.ts';

// undici is reached only by the network tools (--allow-remote, through `await import()`): kept out of
// the bin bundle, it costs a start-up without them nothing.
// The tools load their implementations (src/impl/*) with `await import()`; the library build keeps
// them in dist/server.js (not evaluated until a tool is first called) instead of splitting ~80 chunks.
export default serverConfig({ external: ['undici'] }).map((c) => (c.name === 'lib' ? { ...c, splitting: false } : c));
