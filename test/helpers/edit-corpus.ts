import { promises as fs, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The edit corpus in test/fixtures/edits: one folder per case holding `case.json` (the call and
 * what must come of it), `before/` (the project) and, for a case that lands, `after/` (the
 * project afterwards, byte for byte; a deleted file is absent). The unit test and
 * bench/edits-corpus.mjs both read it through this module.
 *
 * In `args`, `{ "$file": "call.patch" }` stands for the bytes of that file in the case folder
 * (patches read better as files than as JSON strings), and `{{root}}` in any string becomes the
 * project's absolute path, for models that address files absolutely.
 */
export const CORPUS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/edits');

export type Tree = Map<string, Buffer>;

export interface EditCase {
  /** The folder name. */
  id: string;
  name: string;
  /** The model family and tool shape the call imitates. */
  model: string;
  tool: 'edit_file' | 'apply_patch';
  /** Arguments as the model sent them, `$file` resolved, `{{root}}` not yet. */
  args: Record<string, unknown>;
  expect: 'landed' | 'refused';
  /** Landed: the repairs the result must report (empty: none). */
  applied_with?: string[];
  /** Refused: the error_kind, and where given the `line` / `lines` the error must name. */
  error_kind?: string;
  error_line?: number;
  error_lines?: number[];
  before: Tree;
  /** The expected project afterwards: `after/` when landed, `before/` when refused. */
  after: Tree;
}

export function loadCorpus(dir = CORPUS_DIR): EditCase[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((id) => loadCase(path.join(dir, id)));
}

function loadCase(dir: string): EditCase {
  const id = path.basename(dir);
  const spec = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as Omit<
    EditCase,
    'id' | 'before' | 'after'
  >;
  if (spec.tool !== 'edit_file' && spec.tool !== 'apply_patch') throw new Error(`${id}: unknown tool`);
  if (spec.expect !== 'landed' && spec.expect !== 'refused')
    throw new Error(`${id}: expect must be landed|refused`);
  if (spec.expect === 'refused' && !spec.error_kind) throw new Error(`${id}: a refusal names its error_kind`);
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec.args)) {
    const ref = (value as { $file?: unknown } | null)?.$file;
    args[key] = typeof ref === 'string' ? readFileSync(path.join(dir, ref), 'utf8') : value;
  }
  const before = readTreeSync(path.join(dir, 'before'));
  const hasAfter = exists(path.join(dir, 'after'));
  if (spec.expect === 'refused' && hasAfter) throw new Error(`${id}: a refusal has no after/`);
  const after = spec.expect === 'landed' ? readTreeSync(path.join(dir, 'after')) : before;
  return { ...spec, id, args, before, after };
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Every regular file under `dir` by `/`-separated relative path; a missing folder is empty. */
export function readTreeSync(dir: string): Tree {
  const tree: Tree = new Map();
  const walk = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else tree.set(rel, readFileSync(path.join(dir, rel)));
    }
  };
  if (exists(dir)) walk('');
  return new Map([...tree].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The files that differ between two trees (missing on one side, or other bytes). */
export function treeDifferences(actual: Tree, expected: Tree): string[] {
  const out: string[] = [];
  for (const [rel, bytes] of expected) {
    const got = actual.get(rel);
    if (!got) out.push(`${rel}: missing`);
    else if (!got.equals(bytes)) out.push(`${rel}: content differs`);
  }
  for (const rel of actual.keys()) if (!expected.has(rel)) out.push(`${rel}: unexpected`);
  return out;
}

/**
 * A temporary folder holding the project as `project/`, so a call that escapes the root shows up
 * as a change next to it. `tree()` reads the whole folder, project files prefixed `project/`.
 */
export interface CaseSandbox extends AsyncDisposable {
  root: string;
  args: Record<string, unknown>;
  tree(): Tree;
}

export async function sandbox(c: EditCase): Promise<CaseSandbox> {
  const outer = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-edit-corpus-'));
  const root = path.join(outer, 'project');
  await fs.mkdir(root);
  for (const [rel, bytes] of c.before) {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), bytes);
  }
  const args = JSON.parse(JSON.stringify(c.args), (_key, value) =>
    typeof value === 'string' ? value.replaceAll('{{root}}', root) : value,
  ) as Record<string, unknown>;
  return {
    root,
    args,
    tree: () => readTreeSync(outer),
    async [Symbol.asyncDispose]() {
      await fs.rm(outer, { recursive: true, force: true });
    },
  };
}

/** The sandbox tree expected for `files`: everything under `project/`. */
export function inProject(files: Tree): Tree {
  return new Map([...files].map(([rel, bytes]) => [`project/${rel}`, bytes]));
}
