/**
 * The CLI's downloader for `gzip-file-as-resource` and `zip`: the guarded client of `@mcpkit/net` (its SSRF policy,
 * its undici connection pools), loaded and built on the first http(s) download instead of at start. One per
 * process, like the downloader it stands for.
 */
import type { DownloaderOptions } from '@mcpkit/net';
import type { Download } from './download.js';

export interface LazyDownloader {
  download: Download;
  /** Closes the downloader's connection pools, if a download ever opened them. */
  close(): Promise<void>;
}

export function lazyDownloader(options: DownloaderOptions): LazyDownloader {
  let loading: ReturnType<typeof load> | undefined;
  async function load() {
    const { createDownloader } = await import('@mcpkit/net');
    return createDownloader(options);
  }
  return {
    download: async (url, init) => {
      loading ??= load();
      return (await loading).download(url, init);
    },
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}
