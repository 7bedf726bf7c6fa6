import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPatchTool } from '../../../src/tools/apply-patch.js';
import type { Tool } from '../../../src/tools/define-tool.js';
import { editFileTool } from '../../../src/tools/edit-file.js';
import { readFileTool } from '../../../src/tools/read-file.js';
import { shellTool } from '../../../src/tools/shell.js';
import { writeFileTool } from '../../../src/tools/write-file.js';
import { makeContext, makeProject, removeProject } from './project.js';

const ORIGINAL = 'one\ntwo\nthree\n';
const USERS = 'one\ntwo (the user was here)\nthree\n';

let root: string;
let ctx: ReturnType<typeof makeContext>;
beforeEach(async () => {
  root = await makeProject({ 'a.txt': ORIGINAL, 'b.txt': 'bee\n' });
  ctx = makeContext(root);
});
afterEach(() => removeProject(root));

function run(tool: Tool, args: Record<string, unknown>) {
  return tool.run(args, { ...ctx, mode: 'agent', tool: tool.name });
}
const file = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');
const edit = { path: 'a.txt', old_text: 'three', new_text: 'THREE' };

describe('edits to a file that changed since the model read it', () => {
  it('refuses an edit when the file changed on disk after the read, and keeps the user text', async () => {
    await run(readFileTool, { path: 'a.txt' });
    await fs.writeFile(path.join(root, 'a.txt'), USERS);
    const result = await run(editFileTool, edit);
    expect(result.output).toMatchObject({ error_kind: 'changed_since_read', path: 'a.txt' });
    expect(result.content).toContain('Read it again');
    expect(await file('a.txt')).toBe(USERS);
    // After reading again the same edit lands.
    await run(readFileTool, { path: 'a.txt' });
    expect((await run(editFileTool, edit)).ok).toBe(true);
    expect(await file('a.txt')).toBe(USERS.replace('three', 'THREE'));
  });

  it('refuses when the buffer was edited since the read, and says so', async () => {
    await run(readFileTool, { path: 'a.txt' });
    ctx.editor.buffers.set(path.join(root, 'a.txt'), USERS);
    const result = await run(editFileTool, edit);
    expect(result.output).toMatchObject({ error_kind: 'changed_since_read' });
    expect(result.content).toContain('edited in the editor');
    expect(await file('a.txt')).toBe(ORIGINAL);
  });

  it('lets the model edit again after its own edits, and edit files it never read', async () => {
    await run(readFileTool, { path: 'a.txt' });
    expect((await run(editFileTool, edit)).ok).toBe(true);
    expect((await run(editFileTool, { path: 'a.txt', old_text: 'one', new_text: 'ONE' })).ok).toBe(true);
    await fs.writeFile(path.join(root, 'b.txt'), 'bee by the user\n');
    expect((await run(editFileTool, { path: 'b.txt', old_text: 'user', new_text: 'owner' })).ok).toBe(true);
  });

  it('does not count a line-ending or BOM difference between buffer and disk as a change', async () => {
    await fs.writeFile(path.join(root, 'a.txt'), `\uFEFF${ORIGINAL.replace(/\n/g, '\r\n')}`);
    ctx.editor.buffers.set(path.join(root, 'a.txt'), ORIGINAL);
    await run(readFileTool, { path: 'a.txt' });
    ctx.editor.buffers.clear(); // the user saved
    const result = await run(editFileTool, edit);
    expect(result.output).toMatchObject({ replacements: 1 });
    expect(await file('a.txt')).toBe(`\uFEFF${ORIGINAL.replace('three', 'THREE').replace(/\n/g, '\r\n')}`);
  });

  it('refuses a whole patch when one of its files changed since the read', async () => {
    await run(readFileTool, { path: 'a.txt' });
    await run(readFileTool, { path: 'b.txt' });
    await fs.writeFile(path.join(root, 'a.txt'), USERS);
    const patch = [
      '*** Begin Patch',
      '*** Update File: b.txt',
      '-bee',
      '+bea',
      '*** Update File: a.txt',
      ' two',
      '-three',
      '+THREE',
      '*** End Patch',
    ].join('\n');
    const result = await run(applyPatchTool, { patch });
    expect(result.output).toMatchObject({ error_kind: 'changed_since_read', path: 'a.txt' });
    expect(await file('a.txt')).toBe(USERS);
    expect(await file('b.txt')).toBe('bee\n');
  });

  it('refuses to overwrite a read file the user changed since', async () => {
    await run(readFileTool, { path: 'a.txt' });
    await fs.writeFile(path.join(root, 'a.txt'), USERS);
    const result = await run(writeFileTool, { path: 'a.txt', content: 'replaced\n' });
    expect(result.output).toMatchObject({ error_kind: 'changed_since_read' });
    expect(await file('a.txt')).toBe(USERS);
  });

  it('refuses when the file changes while the permission prompt is open', async () => {
    const editor = ctx.editor;
    const ask = editor.askPermission.bind(editor);
    editor.askPermission = async (request) => {
      await fs.writeFile(path.join(root, 'a.txt'), USERS);
      return ask(request);
    };
    const result = await run(editFileTool, edit);
    expect(result.output).toMatchObject({ error_kind: 'changed_since_read' });
    expect(result.content).toContain('while the change waited for approval');
    expect(await file('a.txt')).toBe(USERS);
  });

  it('refuses a patch adding a file that appeared while the prompt was open', async () => {
    const editor = ctx.editor;
    const ask = editor.askPermission.bind(editor);
    editor.askPermission = async (request) => {
      await fs.writeFile(path.join(root, 'new.txt'), 'mine\n');
      return ask(request);
    };
    const patch = ['*** Begin Patch', '*** Add File: new.txt', '+theirs', '*** End Patch'].join('\n');
    const result = await run(applyPatchTool, { patch });
    expect(result.output).toMatchObject({ error_kind: 'changed_since_read', path: 'new.txt' });
    expect(await file('new.txt')).toBe('mine\n');
  });

  it('forgets what it read of files a shell command rewrote', async () => {
    await run(readFileTool, { path: 'a.txt' });
    const shell = await run(shellTool, { command: "printf 'one\\ntwo\\nthree!\\n' > a.txt" });
    expect(shell.changed_paths).toContain('a.txt');
    const result = await run(editFileTool, { path: 'a.txt', old_text: 'three!', new_text: 'three' });
    expect(result.ok).toBe(true);
  });
});
