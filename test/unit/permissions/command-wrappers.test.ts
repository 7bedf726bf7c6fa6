import { describe, expect, it } from 'vitest';
import { scriptOf, unwrapCommand } from '../../../src/permissions/command-wrappers.js';

describe('unwrapCommand', () => {
  const last = (line: string) => unwrapCommand(line.split(' ')).at(-1)?.words.join(' ');

  it('removes leading assignments and each supported wrapper', () => {
    expect(last('A=1 B=2 npm test')).toBe('npm test');
    expect(last('env npm test')).toBe('npm test');
    expect(last('env -i -u HOME A=1 npm test')).toBe('npm test');
    expect(last('timeout 5 npm test')).toBe('npm test');
    expect(last('timeout -s KILL -k 3 5m npm test')).toBe('npm test');
    expect(last('timeout --signal=KILL 5 npm test')).toBe('npm test');
    expect(last('nice -n 10 npm test')).toBe('npm test');
    expect(last('nice -5 npm test')).toBe('npm test');
    expect(last('command npm test')).toBe('npm test');
    expect(last('sudo npm test')).toBe('npm test');
    expect(last('sudo -E -u root -- npm test')).toBe('npm test');
    expect(last('nohup time -p npm test')).toBe('npm test');
    expect(last('sudo timeout 5 env A=1 nice npm test')).toBe('npm test');
  });

  it('splices the string of env -S', () => {
    expect(unwrapCommand(['env', '-S', 'rm -rf /']).at(-1)?.words).toEqual(['rm', '-rf', '/']);
  });

  it('keeps a wrapper that has nothing to run, and leaves other commands alone', () => {
    expect(unwrapCommand(['sudo'])).toHaveLength(1);
    expect(unwrapCommand(['timeout', '5'])).toHaveLength(1);
    expect(unwrapCommand(['A=1'])).toHaveLength(1);
    expect(unwrapCommand(['npm', 'test'])).toEqual([{ words: ['npm', 'test'], privileged: false }]);
  });

  it('marks the steps that remove sudo or doas', () => {
    expect(unwrapCommand(['doas', 'timeout', '5', 'x']).map((s) => s.privileged)).toEqual([
      false,
      true,
      false,
    ]);
  });
});

describe('scriptOf', () => {
  it('finds the script of eval and of a shell run with -c', () => {
    expect(scriptOf(['eval', 'rm', '-rf', '/'])).toBe('rm -rf /');
    expect(scriptOf(['bash', '-c', 'make'])).toBe('make');
    expect(scriptOf(['/bin/sh', '-e', '-c', 'make', 'arg0'])).toBe('make');
    expect(scriptOf(['zsh', '-lc', 'make'])).toBe('make');
  });

  it('returns undefined for a script file or any other command', () => {
    expect(scriptOf(['bash', 'script.sh'])).toBeUndefined();
    expect(scriptOf(['bash', '-e', 'script.sh'])).toBeUndefined();
    expect(scriptOf(['bash', '-c'])).toBeUndefined();
    expect(scriptOf(['eval'])).toBeUndefined();
    expect(scriptOf(['npm', '-c', 'x'])).toBeUndefined();
    expect(scriptOf([])).toBeUndefined();
  });
});
