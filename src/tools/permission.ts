import type { PermissionRequest } from './editor.js';
import type { ToolCallContext } from './tool-context.js';
import { fail, type ToolFailure } from './tool-error.js';

/**
 * Asks before a mutating action; undefined means go ahead. The editor's `askPermission` is the
 * permission service (rules, auto-approve, then the user), so tools only describe the action.
 */
export async function requestPermission(
  ctx: ToolCallContext,
  request: Omit<PermissionRequest, 'tool'>,
): Promise<ToolFailure | undefined> {
  const decision = await ctx.editor.askPermission({ tool: ctx.tool, ...request });
  if (decision === 'once' || decision === 'always') return undefined;
  const reason = typeof decision === 'object' ? decision.deny.trim() : '';
  return fail(
    'denied',
    reason
      ? `The user denied this action: ${reason}`
      : 'The user denied this action. Do not retry it; ask the user how to proceed if unsure.',
  );
}

/** Tells the editor about each committed change, as it is committed, so it can reload buffers. */
export async function reportChanged(ctx: ToolCallContext, absPath: string): Promise<void> {
  try {
    await ctx.editor.fileChanged(absPath);
  } catch {
    // The change is on disk; a failed notification must not turn it into a failed tool call.
  }
}
