/**
 * A server's skills (SEP-2640) as a `SkillSource` for the SDK's `SkillsExtension`: read once from a folder the
 * package ships (`<package>/skills/<skill>/SKILL.md`, …), each entry built by the SDK's `skillEntry` (frontmatter,
 * digests, sizes, the naming rules), every file kept in memory (a few kilobytes). The SDK's own `SkillCatalog`
 * loads asynchronously and must exist before a server attaches it; a server factory is synchronous, so this
 * source loads on first use instead, once per process, and every server instance shares it.
 */

import { fileURLToPath } from 'node:url';
import {
  DIRECTORY_MIME_TYPE,
  type Skill,
  type SkillReadResult,
  type SkillSource,
  skillEntry,
} from '@modelcontextprotocol/server/ext/skills';
import { nodeSkillFiles } from '@modelcontextprotocol/server/ext/skills/node';

/** Bounds on what one skills folder may hold (the SDK's per-skill publication limits are 512 files, 16 MiB). */
const MAX_FILES = 512;
const MAX_BYTES = 4 * 1024 * 1024;
const MAX_DEPTH = 8;

interface ServedFile {
  bytes: Uint8Array;
  text: string | undefined;
  mimeType: string;
}

interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

/** What the folder holds, indexed by canonical URI. */
export interface LoadedSkills {
  skills: readonly Skill[];
  files: ReadonlyMap<string, ServedFile>;
  dirs: ReadonlyMap<string, readonly DirectoryChild[]>;
}

const MIME_TYPES: Record<string, string> = { md: 'text/markdown', json: 'application/json', txt: 'text/plain' };

function mimeTypeOf(name: string): string {
  return MIME_TYPES[name.slice(name.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
}

function canonical(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Reads every skill under `root` (a folder of skill folders) and serves it under `skill://<prefix>/<skill>/…`.
 * Throws on a skill the SDK finds invalid, on a folder holding no skill, and past the bounds above: the folder
 * ships with the package, so any of these is a packaging bug to surface, not to serve around.
 */
export async function loadSkills(root: URL, prefix: string): Promise<LoadedSkills> {
  const storage = nodeSkillFiles(fileURLToPath(root));
  const base = `skill://${prefix}`;
  const skills: Skill[] = [];
  const files = new Map<string, ServedFile>();
  const dirs = new Map<string, DirectoryChild[]>();
  let count = 0;
  let bytes = 0;

  /** Collects the files under `dir` (relative to root) into `record` (keys relative to the skill folder). */
  const walk = async (dir: string, skillDir: string, record: Record<string, Uint8Array>, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) throw new Error(`skills folder ${dir} is nested deeper than ${MAX_DEPTH} levels`);
    const children: DirectoryChild[] = [];
    for (const entry of await storage.list(dir)) {
      const path = `${dir}/${entry.name}`;
      const uri = `${base}/${path}`;
      if (entry.kind === 'unsupported') throw new Error(`skills file ${path} is not a regular file or folder`);
      if (entry.kind === 'directory') {
        children.push({ uri, name: entry.name, mimeType: DIRECTORY_MIME_TYPE });
        await walk(path, skillDir, record, depth + 1);
        continue;
      }
      count += 1;
      const content = await storage.read(path);
      bytes += content.byteLength;
      if (count > MAX_FILES || bytes > MAX_BYTES) throw new Error(`skills folder holds more than ${MAX_FILES} files or ${MAX_BYTES} bytes`);
      record[path.slice(skillDir.length + 1)] = content;
      const mimeType = mimeTypeOf(entry.name);
      files.set(uri, { bytes: content, text: utf8(content), mimeType });
      children.push({ uri, name: entry.name, mimeType, size: content.byteLength });
    }
    children.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    dirs.set(`${base}/${dir}`, children);
  };

  for (const entry of await storage.list('')) {
    if (entry.kind !== 'directory') continue;
    const record: Record<string, Uint8Array> = {};
    await walk(entry.name, entry.name, record, 1);
    if (!record['SKILL.md']) throw new Error(`skills folder ${entry.name} has no SKILL.md`);
    skills.push(await skillEntry(`${prefix}/${entry.name}`, record));
  }
  if (skills.length === 0) throw new Error(`no skill under ${root.href}`);
  skills.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return { skills, files, dirs };
}

/**
 * A `SkillSource` over `loaded()` (which the caller makes load once). With `directoryRead`, it also answers
 * `resources/directory/read` (the SDK then declares `directoryRead: true`).
 */
export function lazySkillSource(loaded: () => Promise<LoadedSkills>, directoryRead: boolean): SkillSource {
  const source: SkillSource = {
    // A handful of skills per server: one page.
    async list() {
      return { skills: [...(await loaded()).skills] };
    },
    async get(uri) {
      const key = canonical(uri);
      return (await loaded()).skills.find((skill) => skill.uri === key);
    },
    async read(uri): Promise<SkillReadResult | undefined> {
      const key = canonical(uri);
      const file = key === undefined ? undefined : (await loaded()).files.get(key);
      if (!file) return undefined;
      return file.text === undefined ? { bytes: file.bytes, mimeType: file.mimeType } : { text: file.text, mimeType: file.mimeType };
    },
    async listResources() {
      const { skills, files } = await loaded();
      return skills.map((skill) => ({
        uri: skill.uri,
        name: skill.frontmatter.name,
        description: skill.frontmatter.description,
        mimeType: 'text/markdown',
        size: files.get(skill.uri)?.bytes.byteLength ?? 0,
      }));
    },
  };
  if (directoryRead) {
    source.readDirectory = async (uri) => {
      const key = canonical(uri)?.replace(/\/+$/, '');
      const children = key === undefined ? undefined : (await loaded()).dirs.get(key);
      return children ? { resources: children.map((child) => ({ ...child })) } : undefined;
    };
  }
  return source;
}
