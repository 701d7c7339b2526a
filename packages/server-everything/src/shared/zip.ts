/**
 * A minimal ZIP writer (PKWARE APPNOTE 6.3: local headers, central directory, end record; no ZIP64) over
 * `node:zlib`, for the legacy `zip` tool. Each entry is deflated, or stored when deflating does not make it
 * smaller. Names are UTF-8 (flag bit 11). Exports (stable): `createZip`, `ZipEntry`, `ZIP_MAX_ENTRIES`, `ZIP_MAX_BYTES`.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** The path inside the archive, as given (the archive is the client's own; it decides what to extract). */
  name: string;
  data: Uint8Array;
}

/** Without ZIP64, an archive holds at most 65 535 entries … */
export const ZIP_MAX_ENTRIES = 0xffff;
/** … and at most 4 GiB - 1 of sizes and offsets. */
const ZIP_MAX_BYTES = 0xffffffff;

const STORE = 0;
const DEFLATE = 8;
const VERSION = 20;
const UTF8_FLAG = 0x0800;

/** MS-DOS time and date fields (local time, 2-second resolution, years 1980–2107). */
function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.min(Math.max(date.getFullYear(), 1980), 2107);
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/** Builds a ZIP archive of `entries`, in order, stamped with `modified`. Throws a `RangeError` past the format's limits. */
export function createZip(entries: readonly ZipEntry[], modified: Date = new Date()): Buffer {
  if (entries.length > ZIP_MAX_ENTRIES) throw new RangeError(`a zip file holds at most ${ZIP_MAX_ENTRIES} files`);
  const stamp = dosDateTime(modified);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    if (name.length > 0xffff) throw new RangeError('a file name in a zip file is at most 65535 bytes long');
    const deflated = deflateRawSync(entry.data);
    const method = deflated.length < entry.data.byteLength ? DEFLATE : STORE;
    const body = method === DEFLATE ? deflated : Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength);
    const crc = crc32(entry.data) >>> 0;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION, 4);
    local.writeUInt16LE(UTF8_FLAG, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(stamp.time, 10);
    local.writeUInt16LE(stamp.date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(entry.data.byteLength, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(VERSION, 4);
    central.writeUInt16LE(VERSION, 6);
    central.writeUInt16LE(UTF8_FLAG, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(stamp.time, 12);
    central.writeUInt16LE(stamp.date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(entry.data.byteLength, 24);
    central.writeUInt16LE(name.length, 28);
    // Extra field, comment, disk number, internal and external attributes: all zero.
    central.writeUInt32LE(offset, 42);

    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
    if (offset > ZIP_MAX_BYTES) throw new RangeError('a zip file without ZIP64 holds at most 4 GiB');
  }
  const directory = Buffer.concat(centrals);
  if (offset + directory.length > ZIP_MAX_BYTES) throw new RangeError('a zip file without ZIP64 holds at most 4 GiB');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
