import { createHash } from 'node:crypto';
import { fail, type ToolFailure } from './tool-error.js';

/**
 * What the model last saw of each file, so an edit is refused when the file changed since: the
 * user's own edits (saved, or unsaved in a buffer) are never overwritten by a change the model
 * planned against older text. A file the model never read may still be edited; the match of
 * `old_text` or of the patch context protects it.
 *
 * Keys are project-relative paths. Digests ignore the BOM and CRLF/LF, which an editor may
 * present differently from the disk without anyone changing the text.
 */
export class ReadLedger {
  private readonly seen = new Map<string, string>();

  /** The model has seen this text of the file (read it, or wrote it itself). */
  saw(rel: string, text: string): void {
    this.seen.set(rel, digest(text));
  }

  /** The file changed in a way the model did not see in full (a command rewrote it, it was deleted). */
  forget(rel: string): void {
    this.seen.delete(rel);
  }

  /** True when the model read this file and its text is no longer what it saw. */
  changedSinceRead(rel: string, currentText: string): boolean {
    const seen = this.seen.get(rel);
    return seen !== undefined && seen !== digest(currentText);
  }

  clear(): void {
    this.seen.clear();
  }
}

function digest(text: string): string {
  const plain = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  return createHash('sha1').update(plain).digest('base64');
}

/** The refusal for an edit planned against text the file no longer has. */
export function changedSinceRead(rel: string, where: 'disk' | 'buffer' | 'approval'): ToolFailure {
  const how =
    where === 'buffer'
      ? 'it has been edited in the editor since you read it'
      : where === 'approval'
        ? 'it changed on disk while the change waited for approval'
        : 'it changed on disk since you read it (by the user or another program)';
  return fail(
    'changed_since_read',
    `${rel} was not changed: ${how}. Read it again with read_file and make the change against its current content.`,
    { path: rel },
  );
}
