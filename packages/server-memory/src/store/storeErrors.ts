/** What a failed call of the file store tells the model: a clear `ToolError`, never a path or a stack. */
import { type Logger, ToolError } from '@mcpkit/protocol-core';
import { ForeignFileError } from './snapshot.js';

export const closedError = (): Error => new Error('the memory store is closed');

/** The memory file was replaced by something else: logged with its path, refused without it. */
function foreignError(error: ForeignFileError, logger: Logger): ToolError {
  logger.error(error.message);
  return new ToolError('The memory file was replaced by something that is not a knowledge graph; refusing to read or overwrite it.');
}

/** A read that failed: a foreign file is refused; anything else goes on as it is. */
export function readError(error: unknown, logger: Logger): unknown {
  return error instanceof ForeignFileError ? foreignError(error, logger) : error;
}

/** What the disk said, in words, for the errors a write can meet on a healthy server (a full disk, a failing one). */
const DISK_ERRORS: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file is too large for the file system',
  EIO: 'the disk reported an I/O error',
  EROFS: 'the file system is read-only',
};

/** `the disk is full (ENOSPC: no space left on device, write)` for a disk error; undefined for anything else. */
export function diskErrorText(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code && Object.hasOwn(DISK_ERRORS, code) ? `${DISK_ERRORS[code]} (${(error as Error).message})` : undefined;
}

/** What to log with a message about a failed write: one line for a disk error, the error itself (its stack) for anything else. */
export const logged = (error: unknown): unknown => diskErrorText(error) ?? error;

/** A batch of writes that could not be saved (nothing was changed): logged, and told without internals. */
export function saveError(error: unknown, location: string, logger: Logger): Error {
  if (error instanceof ToolError) return error;
  if (error instanceof ForeignFileError) return foreignError(error, logger);
  logger.error(`could not update ${location}; nothing was changed:`, logged(error));
  const code = (error as NodeJS.ErrnoException)?.code;
  const said = code && Object.hasOwn(DISK_ERRORS, code) ? `: ${DISK_ERRORS[code]} (${code})` : code ? ` (${code})` : '';
  return new ToolError(`Could not save the knowledge graph${said}; nothing was changed. The server log has the details.`);
}
