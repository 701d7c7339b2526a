import { serverConfig } from '../../tsup.server.ts';

// The conversion and network libraries are loaded with `await import()` on first use; kept out of the
// bin bundle they cost a cold start nothing at all (not even parsing). pdf.js must stay external
// anyway: it loads its worker module from a path next to its own file.
export default serverConfig({
  // Conversions run in a worker thread that is terminated at the fetch deadline (src/content/conversionPool.ts).
  workers: { convertWorker: 'src/content/convertWorker.ts' },
  external: [
    'pdfjs-dist',
    'undici',
    'linkedom',
    '@mozilla/readability',
    'turndown',
    '@joplin/turndown-plugin-gfm',
    'chardet',
    'encoding-sniffer',
    'robots-parser',
  ],
});
