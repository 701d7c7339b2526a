import { serverConfig } from '../../tsup.server.ts';

// undici (through @mcpkit/net) is loaded on the first http(s) download; kept out of the bin bundle it costs a
// cold start nothing, as in server-fetch.
export default serverConfig({ external: ['undici'] });
