import { promises as fs } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * Folders that hold build output, dependencies or caches: skipped by walks and searches unless the
 * model asks for ignored files, because their matches drown the project's own code.
 */
export const GENERATED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  'node_modules',
  'bower_components',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
  '.cache',
  '.gradle',
  'zig-cache',
  'zig-out',
]);

const IGNORE_FILES = ['.gitignore', '.ignore'];

interface Layer {
  /** Directory of the ignore file, relative to the project root ('' for the root). */
  dir: string;
  rules: Ignore;
}

/** Nested `.gitignore` / `.ignore` rules, evaluated the way git does: deeper files override. */
export class IgnoreStack {
  private constructor(private readonly layers: readonly Layer[]) {}

  static empty(): IgnoreStack {
    return new IgnoreStack([]);
  }

  /** Rules from the root down to `dirRel` (exclusive of `dirRel`'s own file, added by `enter`). */
  static async forAncestors(root: string, dirRel: string): Promise<IgnoreStack> {
    let stack = IgnoreStack.empty();
    const parts = dirRel === '' ? [] : dirRel.split('/');
    for (let i = 0; i < parts.length; i++) {
      stack = await stack.enter(root, parts.slice(0, i).join('/'));
    }
    return stack;
  }

  /**
   * The stack for a directory, with its own ignore files loaded. `present` (the directory's
   * entry names, when the caller has them) saves two failing reads per directory, which is most
   * of a walk's cost on a large tree.
   */
  async enter(root: string, dirRel: string, present?: ReadonlySet<string>): Promise<IgnoreStack> {
    const names = IGNORE_FILES.filter((name) => !present || present.has(name));
    if (names.length === 0) return this;
    const texts = await Promise.all(
      names.map((name) => fs.readFile(path.join(root, dirRel, name), 'utf8').catch(() => '')),
    );
    const text = texts.join('\n');
    if (text.trim() === '') return this;
    return new IgnoreStack([...this.layers, { dir: dirRel, rules: ignore().add(text) }]);
  }

  ignores(rel: string, isDir: boolean): boolean {
    let ignored = false;
    for (const layer of this.layers) {
      const local = layer.dir === '' ? rel : rel.slice(layer.dir.length + 1);
      const verdict = layer.rules.test(isDir ? `${local}/` : local);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
    return ignored;
  }
}
