import pkg from '../package.json' with { type: 'json' };

/** This package's version (from package.json). */
export const VERSION: string = pkg.version;
