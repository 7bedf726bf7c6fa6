import fs from 'node:fs/promises';
import path from 'node:path';

export const INSTRUCTIONS_CAP_BYTES = 32 * 1024;
const NAMES = ['AGENTS.md', 'CLAUDE.md'];

/**
 * The project's instructions for the model: in each folder from the project root down to the
 * working folder, `AGENTS.md` (else `CLAUDE.md`), outermost first so nearer files can refine
 * them; capped so a huge file cannot eat the context.
 */
export async function readProjectInstructions(root: string, cwd: string = root): Promise<string> {
  const rel = path.relative(root, cwd);
  const dirs = [root];
  if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) {
    let current = root;
    for (const part of rel.split(path.sep)) {
      current = path.join(current, part);
      dirs.push(current);
    }
  }
  const parts: string[] = [];
  for (const dir of dirs) {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      const text = await fs.readFile(file, 'utf8').catch(() => undefined);
      if (text !== undefined) {
        parts.push(`<!-- ${path.relative(root, file) || name} -->\n${text.trim()}`);
        break;
      }
    }
  }
  const joined = parts.join('\n\n');
  const bytes = Buffer.from(joined, 'utf8');
  if (bytes.length <= INSTRUCTIONS_CAP_BYTES) return joined;
  // Cut on a character boundary, and say so: the model should know it did not see everything.
  const cut = bytes
    .subarray(0, INSTRUCTIONS_CAP_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${cut}\n\n[project instructions truncated at ${INSTRUCTIONS_CAP_BYTES / 1024} KiB]`;
}
