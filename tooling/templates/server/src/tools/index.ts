import { echo } from './echo.js';

/** Every tool of this server, in the order `tools/list` shows them. */
export const tools = [echo];
