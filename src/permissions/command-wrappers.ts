/**
 * Commands that run another command: rules are about what finally runs, so `timeout 60 npm test`
 * is checked as `npm test` too. Pure word-list functions; the splitter feeds them.
 */

export interface UnwrapStep {
  words: string[];
  /** This step removed a wrapper that runs the command as another user. */
  privileged: boolean;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Options of each wrapper that take a separate argument; every other `-x` is a flag. Whatever
 * wrapper options are not listed only make the unwrapped form miss, which asks: the safe side.
 */
const WRAPPERS: Record<string, { withArg: string[]; leadingArg?: boolean; privileged?: boolean }> = {
  env: { withArg: ['-u', '--unset', '-C', '--chdir'] },
  timeout: { withArg: ['-s', '--signal', '-k', '--kill-after'], leadingArg: true },
  nice: { withArg: ['-n', '--adjustment'] },
  ionice: { withArg: ['-c', '--class', '-n', '--classdata', '-p', '-P', '-u'] },
  nohup: { withArg: [] },
  time: { withArg: ['-f', '--format', '-o', '--output'] },
  command: { withArg: [] },
  exec: { withArg: ['-a'] },
  stdbuf: { withArg: ['-i', '-o', '-e'] },
  sudo: {
    withArg: ['-u', '--user', '-g', '--group', '-C', '--close-from', '-D', '--chdir', '-h', '--host'],
    privileged: true,
  },
  doas: { withArg: ['-u', '-C'], privileged: true },
};

/**
 * Successive forms of a command with leading assignments and wrappers (`env A=1`, `timeout 5`,
 * `sudo -u x`, `nice -n 5`, `command`) removed one at a time: `[['timeout','5','npm','test'],
 * ['npm','test']]` for `timeout 5 npm test`.
 */
export function unwrapCommand(words: string[]): UnwrapStep[] {
  const steps: UnwrapStep[] = [{ words, privileged: false }];
  let rest = words;
  for (;;) {
    let i = 0;
    while (i < rest.length && ASSIGNMENT.test(rest[i] as string)) i++;
    const name = rest[i];
    const wrapper = name === undefined ? undefined : WRAPPERS[name];
    if (wrapper) {
      i++;
      while (i < rest.length) {
        const word = rest[i] as string;
        if (word === '--') {
          i++;
          break;
        }
        if (name === 'env' && (word === '-S' || word === '--split-string') && i + 1 < rest.length) {
          // `env -S "a b"` runs the words of one string: splice them in and keep unwrapping.
          rest = [
            ...rest.slice(0, i),
            ...(rest[i + 1] as string).split(/\s+/).filter(Boolean),
            ...rest.slice(i + 2),
          ];
          break;
        }
        // Any other dash word is a flag (`nice -5` is an adjustment, `--signal=KILL` one word).
        if (!word.startsWith('-') || word === '-') break;
        i += wrapper.withArg.includes(word) ? 2 : 1;
      }
      if (name === 'env') while (i < rest.length && ASSIGNMENT.test(rest[i] as string)) i++;
      if (wrapper.leadingArg && i < rest.length) i++;
    }
    if (i === 0 || i >= rest.length) break;
    rest = rest.slice(i);
    steps.push({ words: rest, privileged: wrapper?.privileged === true });
  }
  return steps;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);

/**
 * The script a command hands to a shell (`eval ...`, `bash -c '...'`), so the commands inside
 * are checked too; undefined for anything else.
 */
export function scriptOf(words: readonly string[]): string | undefined {
  const [name, ...args] = words;
  if (name === 'eval') return args.length > 0 ? args.join(' ') : undefined;
  if (name === undefined || !SHELLS.has(name.replace(/^.*\//, ''))) return undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--' || !arg.startsWith('-')) return undefined;
    // `-c` may be bundled with other flags: `bash -lc 'make'`.
    if (/^-[a-z]*c[a-z]*$/.test(arg)) return args[i + 1];
  }
  return undefined;
}
