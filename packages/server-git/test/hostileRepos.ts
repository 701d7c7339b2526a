/**
 * Hostile repositories for the object-store tests: a real repository made with the git CLI, then an
 * object of it replaced with crafted bytes (a pack and its .idx written here, or a loose file), the way
 * a cloned fork, an archive or a CI checkout could hold them.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { gitRepo, type RepoFixture, write } from './helpers.js';

export interface PackEntry {
  oid: string;
  /** 1 commit, 2 tree, 3 blob, 6 ofs-delta, 7 ref-delta. */
  kind: number;
  /** The size the entry's header declares (for a delta: the delta's own size). */
  size: number;
  /** The zlib stream's bytes. */
  zlib: Buffer;
  /** ofs-delta: the index of its base among the entries written before it; ref-delta: the base's oid. */
  base?: number | string;
}

function header(kind: number, size: number): Buffer {
  const out = [((kind & 7) << 4) | (size & 15) | (size > 15 ? 0x80 : 0)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    out.push((rest & 0x7f) | (rest > 0x7f ? 0x80 : 0));
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(out);
}

function ofsBytes(rel: number): Buffer {
  const out = [rel & 0x7f];
  let n = Math.floor(rel / 128);
  while (n > 0) {
    n -= 1;
    out.unshift(0x80 | (n & 0x7f));
    n = Math.floor(n / 128);
  }
  return Buffer.from(out);
}

/** A delta's size varint. */
export function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Buffer.from(out);
}

/** A delta from a `baseSize`-byte base to `size` bytes: copies of [0, baseSize) `copies` times, then `insert`. */
export function delta(baseSize: number, copies: number, insert = Buffer.alloc(0)): Buffer {
  const parts = [varint(baseSize), varint(baseSize * copies + insert.length)];
  for (let i = 0; i < copies; i++) {
    // copy: offset 0, length baseSize (3 length bytes)
    parts.push(Buffer.from([0x80 | 0x10 | 0x20 | 0x40, baseSize & 0xff, (baseSize >> 8) & 0xff, (baseSize >> 16) & 0xff]));
  }
  for (let at = 0; at < insert.length; at += 127) {
    const chunk = insert.subarray(at, at + 127);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

/** Writes `objects/pack/pack-<sha>.pack` and a v2 `.idx` for `entries` (in that order); returns the .idx path. */
export function writePack(gitdir: string, entries: PackEntry[]): string {
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(entries.length, 8);
  const parts: Buffer[] = [head];
  const offsets: number[] = [];
  let at = 12;
  for (const e of entries) {
    offsets.push(at);
    const bits = [header(e.kind, e.size)];
    if (e.kind === 6) bits.push(ofsBytes(at - offsets[e.base as number]!));
    if (e.kind === 7) bits.push(Buffer.from(e.base as string, 'hex'));
    bits.push(e.zlib);
    const bytes = Buffer.concat(bits);
    parts.push(bytes);
    at += bytes.length;
  }
  const body = Buffer.concat(parts);
  const packSha = createHash('sha1').update(body).digest();
  const name = `pack-${packSha.toString('hex')}`;
  writeFileSync(join(gitdir, 'objects', 'pack', `${name}.pack`), Buffer.concat([body, packSha]));
  const sorted = entries.map((e, i) => ({ oid: e.oid, offset: offsets[i]! })).sort((a, b) => (a.oid < b.oid ? -1 : 1));
  const fan = Buffer.alloc(1024);
  for (let b = 0; b < 256; b++) fan.writeUInt32BE(sorted.filter((e) => Number.parseInt(e.oid.slice(0, 2), 16) <= b).length, 4 * b);
  const shas = Buffer.concat(sorted.map((e) => Buffer.from(e.oid, 'hex')));
  const crcs = Buffer.alloc(4 * sorted.length);
  const offs = Buffer.alloc(4 * sorted.length);
  for (const [i, e] of sorted.entries()) offs.writeUInt32BE(e.offset, 4 * i);
  const idxBody = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fan, shas, crcs, offs, packSha]);
  const idx = join(gitdir, 'objects', 'pack', `${name}.idx`);
  writeFileSync(idx, Buffer.concat([idxBody, createHash('sha1').update(idxBody).digest()]));
  return idx;
}

/** Removes the loose file of `oid` (so only the crafted copy is left). */
export function dropLoose(gitdir: string, oid: string): void {
  rmSync(join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2)), { force: true });
}

/** A repository whose HEAD commit (parent: "initial commit") adds `big.txt` = `content`; the ids of its objects. */
export function twoCommits(content = 'ten bytes\n'): RepoFixture & { head: string; tree: string; blob: string; gitdir: string } {
  const fx = gitRepo();
  write(fx.repo, { 'big.txt': content });
  fx.git('add', 'big.txt');
  fx.git('commit', '-q', '-m', 'add big.txt');
  const head = fx.git('rev-parse', 'HEAD').trim();
  const tree = fx.git('rev-parse', 'HEAD^{tree}').trim();
  const blob = fx.git('rev-parse', 'HEAD:big.txt').trim();
  return Object.assign(fx, { head, tree, blob, gitdir: join(fx.repo, '.git') });
}

/** The one .idx of a repository packed with `git repack -a -d`. */
export function packAll(fx: RepoFixture): string {
  fx.git('repack', '-q', '-a', '-d');
  const dir = join(fx.repo, '.git', 'objects', 'pack');
  const idx = readdirSync(dir).find((n) => n.endsWith('.idx'));
  if (!idx) throw new Error('git repack wrote no .idx');
  return join(dir, idx);
}

/** Overwrites the .idx fan-out from bucket `from` on with `count` (2^32 - 1: "4 billion objects"). */
export function claimObjects(idxFile: string, count = 0xffffffff, from = 0): void {
  const idx = readFileSync(idxFile);
  for (let b = from; b < 256; b++) idx.writeUInt32BE(count, 8 + 4 * b);
  writeFileSync(idxFile, idx);
}

/** A loose object file whose header says `type declared` and whose content is `content`. */
export function writeLoose(gitdir: string, oid: string, type: string, declared: number, content: Buffer): void {
  const file = join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
  rmSync(file, { force: true });
  writeFileSync(file, deflateSync(Buffer.concat([Buffer.from(`${type} ${declared}\0`), content])));
}

/** `n` bytes of `x` repeated, compressed (a bomb's payload: kilobytes for many MiB). */
export function zeros(n: number): Buffer {
  return Buffer.alloc(n, 0x78);
}

export { deflateSync };
