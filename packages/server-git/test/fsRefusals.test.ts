import { ToolError } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { createConfinedFs } from '../src/engine/git/confinedFs.js';
import { withFsRefusals } from '../src/tools/fsRefusals.js';
import { tempDir } from './helpers.js';

describe('file-system refusals become tool errors', () => {
  it("the confined fs's EACCES names the refused path and the rule; other errors pass unchanged", async () => {
    using dir = tempDir();
    const fs = createConfinedFs([dir.path]);
    const tool = withFsRefusals({ handler: async (_args: never) => fs.promises.writeFile('/etc/mcpkit-never', 'x') });
    const error = await tool.handler(undefined as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(
      /^Refused by the repository confinement: writeFile outside the repository is not allowed \(path '\/etc\/mcpkit-never'\)/,
    );
    const long = withFsRefusals({ handler: async (_args: never) => fs.promises.readFile(`${dir.path}/${'n'.repeat(5000)}`) });
    const tooLong = await long.handler(undefined as never).catch((e: unknown) => e);
    expect(tooLong).toBeInstanceOf(ToolError);
    expect((tooLong as Error).message).toMatch(/^Refused: a file name is too long for the file system/);
    const other = withFsRefusals({
      handler: async (_args: never) => {
        throw new Error('boom');
      },
    });
    await expect(other.handler(undefined as never)).rejects.toThrow(/^boom$/);
  });
});
