/**
 * The `skill` tool: how the model loads a skill when it wants one. Its description lists every
 * skill's name and description (no file is read for that: the listing carries them); calling it
 * reads the skill's `SKILL.md` (or one of its other files), verified, as the tool's result.
 * It runs in the agent (no approval: it only reads what a connected server published).
 */
import type { ToolSpec } from '../types.js';

/** A server's tools are `server__tool`, so this never clashes with one. */
export const SKILL_TOOL_NAME = 'skill';
/** Skills named in the tool's description at most (the rest are still loadable by name). */
const MAX_LISTED = 50;

/** A skill as the agent offers it. */
export interface SkillSummary {
  /** What the model passes as `name`: the skill's name, `server/name` when two servers use one. */
  name: string;
  server: string;
  description: string;
  /** Its other files, relative to the skill (`references/FORMS.md`). */
  files: string[];
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}...` : line;
}

export function skillToolSpec(skills: readonly SkillSummary[]): ToolSpec {
  const lines = skills.slice(0, MAX_LISTED).map((skill) => `- ${skill.name} (${skill.server}): ${oneLine(skill.description, 200)}`);
  const more = skills.length > MAX_LISTED ? `\n(${skills.length - MAX_LISTED} more skills, not listed here.)` : '';
  return {
    name: SKILL_TOOL_NAME,
    description:
      "Load a skill: instructions a server's authors wrote for using its tools well. Load the one that fits the task " +
      `before using that server's tools; its text is returned. Skills:\n${lines.join('\n')}${more}`,
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The skill to load, as listed.' },
        file: { type: 'string', description: "One of the skill's other files, as its SKILL.md names it (e.g. references/FORMS.md)." },
      },
      required: ['name'],
    },
  };
}
