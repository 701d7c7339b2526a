import { describe, expect, it } from 'vitest';
import { PdfError, pdfToText } from '../src/content/pdf.js';

/**
 * A PDF with one page per entry of `pages` (each a list of lines, Helvetica with WinAnsiEncoding, so
 * Latin-1 text such as "café" maps to Unicode without a ToUnicode map); offsets computed.
 */
function pdfOfPages(pages: string[][], title?: string): Buffer {
  const pdfString = (s: string) => s.replace(/[()\\]/g, (c) => `\\${c}`);
  const font = 3 + pages.length * 2;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`,
  ];
  pages.forEach((lines, i) => {
    const content = `BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((l) => `(${pdfString(l)}) Tj T*`).join(' ')} ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + i * 2} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
      `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    );
  });
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  objects.push(`<< /Title (${pdfString(title ?? '')}) >>`);
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${title ? ` /Info ${objects.length} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

describe('pdfToText (unpdf’s text-only pdf.js build)', () => {
  it('joins pages with a blank line, lines with a newline, and reads the title', async () => {
    const pdf = pdfOfPages(
      [
        ['Quarterly report', 'Revenue   grew by 12 percent.'],
        ['Second page', 'Costs fell.'],
      ],
      'Q3 Report',
    );
    expect(await pdfToText(pdf)).toEqual({
      text: 'Quarterly report\nRevenue grew by 12 percent.\n\nSecond page\nCosts fell.',
      title: 'Q3 Report',
    });
  });

  it('maps WinAnsi text to Unicode and leaves out pages without text', async () => {
    const pdf = pdfOfPages([['Caf\u00e9 cr\u00e8me \u00e0 5 \u00a3'], [], ['Fin']]);
    expect(await pdfToText(pdf)).toEqual({ text: 'Caf\u00e9 cr\u00e8me \u00e0 5 \u00a3\n\nFin', title: null });
  });

  it('reads the same document again (no state kept between calls)', async () => {
    const pdf = pdfOfPages([['Again']]);
    const [a, b] = await Promise.all([pdfToText(pdf), pdfToText(new Uint8Array(pdf))]);
    expect(a).toEqual({ text: 'Again', title: null });
    expect(b).toEqual(a);
  });

  it('throws a PdfError for bytes that are not a readable PDF', async () => {
    const error = await pdfToText(Buffer.from('%PDF-1.4\nthis is not really a pdf')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfError);
    expect((error as Error).message).toMatch(/^the PDF could not be read/);
  });
});
