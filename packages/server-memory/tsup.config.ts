import { serverConfig } from '../../tsup.server.ts';

export default serverConfig();
