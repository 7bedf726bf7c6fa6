// Runs one case of test/fixtures/edits through the real edit_file / apply_patch for
// bench/edits-corpus.mjs, in a fresh temporary project each time.
import { applyPatchTool } from '../src/tools/apply-patch.js';
import { editFileTool } from '../src/tools/edit-file.js';
import {
  type EditCase,
  inProject,
  loadCorpus,
  sandbox,
  treeDifferences,
} from '../test/helpers/edit-corpus.js';
import { makeContext } from '../test/unit/tools/project.js';

export { loadCorpus };

export interface OurRun {
  ms: number;
  ok: boolean;
  error_kind?: string;
  /** The project (and its surroundings) changed at all. */
  changed: boolean;
  /** The project ended as the case expects. */
  asExpected: boolean;
}

export async function runOurs(c: EditCase): Promise<OurRun> {
  await using box = await sandbox(c);
  const ctx = { ...makeContext(box.root), mode: 'agent' as const, tool: c.tool };
  const tool = c.tool === 'edit_file' ? editFileTool : applyPatchTool;
  const started = performance.now();
  const result = await tool.run(box.args, ctx);
  const ms = performance.now() - started;
  const tree = box.tree();
  return {
    ms,
    ok: result.ok,
    error_kind: result.ok ? undefined : String(result.output.error_kind),
    changed: treeDifferences(tree, inProject(c.before)).length > 0,
    asExpected: treeDifferences(tree, inProject(c.after)).length === 0,
  };
}
