import { serverConfig } from '../../tsup.server.ts';

// undici is reached only by the network tools (--allow-remote, through `await import()`): kept out of
// the bin bundle, it costs a start-up without them nothing.
export default serverConfig({ external: ['undici'] });
