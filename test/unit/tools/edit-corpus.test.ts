import { describe, expect, it } from 'vitest';
import { applyPatchTool } from '../../../src/tools/apply-patch.js';
import { editFileTool } from '../../../src/tools/edit-file.js';
import { type EditCase, inProject, loadCorpus, sandbox, treeDifferences } from '../../helpers/edit-corpus.js';
import { makeContext } from './project.js';

/**
 * Every case of test/fixtures/edits through the real tools: a case that lands leaves the project
 * equal to its after/ byte for byte, a refusal leaves it equal to before/ (and nothing beside it)
 * with the expected error_kind.
 */
const CORPUS = loadCorpus();

describe('edit corpus', () => {
  it.each(CORPUS.map((c) => [c.id, c] as const))('%s', async (_id, c: EditCase) => {
    await using box = await sandbox(c);
    const ctx = { ...makeContext(box.root), mode: 'agent' as const, tool: c.tool };
    const tool = c.tool === 'edit_file' ? editFileTool : applyPatchTool;
    const result = await tool.run(box.args, ctx);
    const output = result.output;
    if (c.expect === 'refused') {
      expect(output.error_kind, String(output.error)).toBe(c.error_kind);
      if (c.error_line !== undefined) expect(output.line).toBe(c.error_line);
      if (c.error_lines) expect(output.lines).toEqual(c.error_lines);
      expect(result.changed_paths).toEqual([]);
    } else {
      expect(output.error, String(output.error)).toBeUndefined();
      if (c.applied_with)
        expect([...((output.applied_with as string[]) ?? [])].sort()).toEqual([...c.applied_with].sort());
    }
    expect(treeDifferences(box.tree(), inProject(c.after))).toEqual([]);
  });

  it('holds at least 40 cases, a third of them refusals', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(40);
    expect(CORPUS.filter((c) => c.expect === 'refused').length * 3).toBeGreaterThanOrEqual(CORPUS.length);
  });
});
