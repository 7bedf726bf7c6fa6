import { promises as fs } from 'node:fs';
import type { ConfinedPath } from './confine-path.js';
import { changedSinceRead } from './read-ledger.js';
import type { ToolContext } from './tool-context.js';
import { fail, type ToolFailure } from './tool-error.js';

/**
 * Before an edit is planned: refuses a file whose buffer has unsaved changes, or whose text
 * (in the buffer or on disk) is not what the model last read. `diskText` is the decoded file.
 */
export async function refuseStaleFile(
  ctx: ToolContext,
  target: ConfinedPath,
  diskText: string,
): Promise<ToolFailure | undefined> {
  const buffer = await ctx.editor.bufferText(target.abs);
  if (buffer !== undefined) {
    if (ctx.reads.changedSinceRead(target.rel, buffer)) return changedSinceRead(target.rel, 'buffer');
    // Writing the disk file under a buffer with unsaved edits would force the user to pick one
    // version; the model may have read the buffer text, which is not on disk.
    return fail(
      'unsaved_buffer',
      `${target.rel} has unsaved changes in the editor. Ask the user to save or discard them, then read it again.`,
      { path: target.rel },
    );
  }
  if (ctx.reads.changedSinceRead(target.rel, diskText)) return changedSinceRead(target.rel, 'disk');
  return undefined;
}

/**
 * After the user approved: the file must still hold the bytes the change was computed from (the
 * user may have edited and saved it while the prompt was open), and still have no unsaved buffer.
 * `before` undefined means the file did not exist.
 */
export async function refuseChangedMeanwhile(
  ctx: ToolContext,
  target: ConfinedPath,
  before: Uint8Array | undefined,
): Promise<ToolFailure | undefined> {
  let now: Uint8Array | undefined;
  try {
    now = await fs.readFile(target.real);
  } catch {
    now = undefined;
  }
  const same =
    before === undefined ? now === undefined : now !== undefined && Buffer.from(now).equals(before);
  if (!same) return changedSinceRead(target.rel, 'approval');
  if (before !== undefined && (await ctx.editor.bufferText(target.abs)) !== undefined) {
    return changedSinceRead(target.rel, 'buffer');
  }
  return undefined;
}
