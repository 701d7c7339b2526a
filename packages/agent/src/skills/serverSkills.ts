/**
 * One server's skills (SEP-2640, `io.modelcontextprotocol/skills`), through SDK 2.4's `SkillsClient`:
 * listed (`skills/list`, every page) when the server connects, and a skill's files read only when the
 * model asks for one. `SkillsClient.read` checks every file against the listed entry before we see it
 * (listed at all, its byte size, its SHA-256 digest, and for `SKILL.md` the frontmatter); a file that
 * fails is refused with `SkillVerificationError`, and nothing of it reaches the model.
 */
import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import { type Skill, type SkillFile, SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { errorMessage, McpError } from '../errors.js';

/** Skills one server publishes. */
export interface ServerSkills {
  readonly client: SkillsClient;
  readonly entries: readonly Skill[];
  /** Entries refused at listing (bad digest format, repeated URI…), one line each. */
  readonly invalid: readonly string[];
}

/** Listed per server at most (a server could claim any number). */
const MAX_SKILLS_PER_SERVER = 200;

/** The server's skills, or undefined when it does not offer the extension. Reads no skill file. */
export async function listServerSkills(client: Client, options?: RequestOptions): Promise<ServerSkills | undefined> {
  const skills = new SkillsClient(client, { skipInvalid: true });
  if (!skills.supported) return undefined;
  const listing = await skills.list(undefined, options);
  return {
    client: skills,
    entries: listing.skills.slice(0, MAX_SKILLS_PER_SERVER),
    invalid: listing.invalid.map((entry) => `${entry.uri ?? `entry ${entry.index}`}: ${entry.reason}`),
  };
}

/** The files of `skill` other than its `SKILL.md`, as paths relative to the skill (what `file` takes). */
export function skillFiles(skill: Skill): string[] {
  if (skill.resources === 'dynamic') return [];
  const root = skill.uri.slice(0, skill.uri.length - 'SKILL.md'.length);
  return skill.resources
    .map((resource) => resource.uri)
    .filter((uri) => uri !== skill.uri)
    .map((uri) => (uri.startsWith(root) ? uri.slice(root.length) : uri));
}

/** Why a read was refused, for the model: one line, no content. */
function refusal(error: SkillVerificationError): string {
  switch (error.reason) {
    case 'digest':
      return 'its content does not match the SHA-256 digest the server listed';
    case 'size':
      return 'its size differs from the size the server listed';
    case 'frontmatter':
      return `its frontmatter differs from the listed entry (${error.differences.slice(0, 3).join('; ')})`;
    default:
      return 'it is not one of the files the server listed for the skill';
  }
}

/**
 * Read `file` of `skill` (default its `SKILL.md`), verified.
 * @throws McpError `TOOL_EXECUTION_FAILED` when verification fails (nothing of the file is returned) or the read fails.
 */
export async function readSkillFile(
  skills: ServerSkills,
  skill: Skill,
  file: string | undefined,
  label: string,
  options?: RequestOptions,
): Promise<SkillFile> {
  try {
    return await skills.client.read(skill, file, options);
  } catch (error) {
    const what = file ? `${label} file ${JSON.stringify(file.slice(0, 200))}` : label;
    if (error instanceof SkillVerificationError) {
      throw new McpError('TOOL_EXECUTION_FAILED', `${what} was refused: ${refusal(error)}; it was not loaded`, {
        cause: error,
        details: { reason: error.reason, uri: error.uri },
      });
    }
    throw new McpError('TOOL_EXECUTION_FAILED', `${what} could not be read: ${errorMessage(error)}`, { cause: error });
  }
}
