/** formatBytes and formatSize: the one byte formatter and the answer-limit form. */
import { describe, expect, it } from 'vitest';
import { formatBytes, formatSize } from '../src/size.js';

describe('formatBytes', () => {
  it('counts bytes below 1 KiB, then KiB and MiB with one decimal at most', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1023)).toBe('1023 bytes');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(5000)).toBe('4.9 KiB');
    expect(formatBytes(128 * 1024)).toBe('128 KiB');
    expect(formatBytes(1024 * 1024 - 1)).toBe('1024 KiB');
    expect(formatBytes(8 * 1024 * 1024)).toBe('8 MiB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MiB');
  });

  it('with exact, names a unit only for whole KiB or MiB', () => {
    expect(formatBytes(1000, { exact: true })).toBe('1000 bytes');
    expect(formatBytes(1024, { exact: true })).toBe('1 KiB');
    expect(formatBytes(1025, { exact: true })).toBe('1025 bytes');
    expect(formatBytes(99_999, { exact: true })).toBe('99999 bytes');
    expect(formatBytes(128 * 1024, { exact: true })).toBe('128 KiB');
    expect(formatBytes(1536 * 1024, { exact: true })).toBe('1536 KiB');
    expect(formatBytes(8 * 1024 * 1024, { exact: true })).toBe('8 MiB');
  });
});

describe('formatSize', () => {
  it('always shows MiB with one decimal and the exact count', () => {
    expect(formatSize(8 * 1024 * 1024)).toBe('8.0 MiB (8388608 bytes)');
    expect(formatSize(8 * 1024 * 1024 + 1)).toBe('8.0 MiB (8388609 bytes)');
  });
});
