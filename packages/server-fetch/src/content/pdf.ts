export interface PdfText {
  text: string;
  title: string | null;
}

export class PdfError extends Error {
  override readonly name = 'PdfError';
}

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/**
 * The text of a PDF, page by page (pages separated by a blank line), with Mozilla's pdf.js in the
 * text-only build that `unpdf` ships (`unpdf/pdfjs`: pdf.js and its worker in one ~1.7 MB file, no
 * canvas, so no native `@napi-rs/canvas` download; `pdfjs-dist` itself is ~38 MB installed and pulls
 * that 33 MB addon in as an optional dependency). The document is parsed in this thread (pdf.js's
 * "fake worker"), which is already a conversion worker thread. Loaded on first use: it is the heaviest
 * dependency and most fetches never need it. Warnings are silenced (`verbosity: 0`) because pdf.js
 * prints them with `console.log`, and stdout belongs to the protocol.
 */
export async function pdfToText(bytes: Uint8Array): Promise<PdfText> {
  const pdfjs = await import('unpdf/pdfjs');
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => {});
    const name = (error as { name?: string }).name;
    if (name === 'PasswordException') throw new PdfError('the PDF is password-protected, so its text cannot be read');
    throw new PdfError(`the PDF could not be read (${(error as Error).message})`);
  }
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items as TextItem[]) {
        if (typeof item.str === 'string') text += item.str;
        if (item.hasEOL) text += '\n';
      }
      pages.push(
        text
          .split('\n')
          .map((line) => line.replace(/[ \t]+/g, ' ').trim())
          .join('\n')
          .replace(/\n{3,}/g, '\n\n')
          .trim(),
      );
      page.cleanup();
    }
    const info = (await doc.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : null;
    return { text: pages.filter(Boolean).join('\n\n'), title };
  } finally {
    // The loading task owns the document (pdf.js 6 drops `PDFDocumentProxy.destroy`).
    await task.destroy().catch(() => {});
  }
}
