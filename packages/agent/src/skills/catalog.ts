/**
 * Every connected server's skills under one set of names (the skill's own name, `server/name` when two
 * servers use it), and the loading the `skill` tool does: one file, read now, verified, as text for the model.
 */
import type { RequestOptions } from '@modelcontextprotocol/client';
import { McpError } from '../errors.js';
import { readSkillFile, type ServerSkills, skillFiles } from './serverSkills.js';
import type { SkillSummary } from './tool.js';

interface SkillRoute {
  summary: SkillSummary;
  skill: ServerSkills['entries'][number];
  skills: ServerSkills;
}

export interface SkillCatalog {
  /** Names from scratch, in server order then each server's order. */
  rebuild(servers: readonly { server: string; skills: ServerSkills }[]): void;
  list(): readonly SkillSummary[];
  /**
   * @throws McpError `RESOURCE_NOT_FOUND` (no such skill or file), `TOOL_EXECUTION_FAILED` (refused or unreadable).
   */
  load(name: string, file: string | undefined, options?: RequestOptions): Promise<string>;
}

/** What the model gets for a loaded skill file: where it came from, whether it was verified, its text. */
function skillText(
  summary: SkillSummary,
  file: string | undefined,
  read: { text?: string; body?: string; bytes: Uint8Array; verified: boolean },
): string {
  const checked = read.verified
    ? `verified: ${read.bytes.byteLength} bytes, SHA-256 as listed`
    : 'not verified: the server publishes it as dynamic';
  const head = `Skill ${summary.name} from ${summary.server}${file ? `, file ${file}` : ''} (${checked}).`;
  const others =
    !file && summary.files.length > 0 ? `\nIts other files (load one with skill({ name, file })): ${summary.files.join(', ')}` : '';
  const body = file ? (read.text ?? `(binary file, ${read.bytes.byteLength} bytes)`) : (read.body ?? read.text ?? '');
  return `${head}${others}\n\n${body.trim()}`;
}

export function createSkillCatalog(): SkillCatalog {
  let routes = new Map<string, SkillRoute>();
  let summaries: readonly SkillSummary[] = [];
  return {
    rebuild(servers) {
      const counts = new Map<string, number>();
      for (const { skills } of servers) {
        for (const skill of skills.entries) counts.set(skill.frontmatter.name, (counts.get(skill.frontmatter.name) ?? 0) + 1);
      }
      const next = new Map<string, SkillRoute>();
      for (const { server, skills } of servers) {
        for (const skill of skills.entries) {
          const own = skill.frontmatter.name;
          const name = (counts.get(own) ?? 0) > 1 ? `${server}/${own}` : own;
          if (next.has(name)) continue;
          const summary: SkillSummary = { name, server, description: skill.frontmatter.description, files: skillFiles(skill) };
          next.set(name, { summary, skill, skills });
        }
      }
      routes = next;
      summaries = [...next.values()].map((route) => route.summary);
    },
    list: () => summaries,
    async load(name, file, options) {
      const route = routes.get(name);
      if (!route) {
        const known = summaries.map((skill) => skill.name).slice(0, 50);
        throw new McpError('RESOURCE_NOT_FOUND', `no skill ${JSON.stringify(name.slice(0, 100))}; skills: ${known.join(', ') || '(none)'}`);
      }
      const { summary, skill, skills } = route;
      if (file !== undefined && !summary.files.includes(file)) {
        throw new McpError(
          'RESOURCE_NOT_FOUND',
          `skill ${summary.name} has no file ${JSON.stringify(file.slice(0, 200))}; its files: ${summary.files.join(', ') || '(only SKILL.md)'}`,
        );
      }
      const read = await readSkillFile(skills, skill, file, `skill ${summary.name} (${summary.server})`, options);
      return skillText(summary, file, read);
    },
  };
}
