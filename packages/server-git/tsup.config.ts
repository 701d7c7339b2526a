import { serverConfig } from '../../tsup.server.ts';

// undici is reached only by the network tools (--allow-remote, through `await import()`): kept out of
// the bin bundle, it costs a start-up without them nothing.
// The tools load the engine (src/engine/index.ts, with isomorphic-git) once, with `await import()`: the bin
// gets it as a chunk of its own; the library build keeps it in dist/server.js (not evaluated until a tool
// is first called) instead of splitting it into chunks.
export default serverConfig({ external: ['undici'] }).map((c) => (c.name === 'lib' ? { ...c, splitting: false } : c));
