import { serverConfig } from '../../tsup.server.ts';

// The conversion and network libraries, and lru-cache (the page and robots.txt caches), are loaded with
// `await import()` on first use; kept out of the bin bundle they cost a cold start nothing at all (not
// even parsing). They are the package's
// `dependencies` (the library entry imports them too). unpdf's pdf.js build (~1.7 MB, PDFs only) stays
// an installed file rather than a copy in the bin's chunks.
export default serverConfig({
  // Conversions run in a worker thread that is terminated at the fetch deadline (src/content/conversionPool.ts).
  workers: { convertWorker: 'src/content/convertWorker.ts' },
  external: [
    'unpdf',
    'undici',
    'linkedom',
    '@mozilla/readability',
    'turndown',
    '@joplin/turndown-plugin-gfm',
    'chardet',
    'encoding-sniffer',
    'robots-parser',
    'lru-cache',
  ],
});
