import { describe, expect, it } from 'vitest';
import { splitShellCommand } from '../../../src/permissions/shell-command.js';

const raws = (command: string) => splitShellCommand(command).map((p) => p.raw);

describe('splitShellCommand', () => {
  it('splits on every list and pipeline operator', () => {
    expect(raws('npm test && rm -rf /')).toEqual(['npm test', 'rm -rf /']);
    expect(raws('a || b; c | d |& e & f')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(raws('npm test\nrm -rf /')).toEqual(['npm test', 'rm -rf /']);
    expect(raws('npm test\r\nrm x')).toEqual(['npm test', 'rm x']);
    expect(raws('(cd x && rm y)')).toEqual(['cd x', 'rm y']);
  });

  it('keeps operators inside quotes and escapes', () => {
    expect(raws(`echo "a && b" 'x;y|z'`)).toEqual([`echo "a && b" 'x;y|z'`]);
    expect(raws('find . -name x -exec rm {} \\;')).toEqual(['find . -name x -exec rm {} \\;']);
    expect(raws(`echo $'a\\'; b'`)).toEqual([`echo $'a\\'; b'`]);
  });

  it('offers the unquoted words as a second form', () => {
    const [part] = splitShellCommand(`git commit -m "fix: it"   --quiet`);
    expect(part?.forms).toEqual([`git commit -m "fix: it"   --quiet`, 'git commit -m fix: it --quiet']);
    expect(splitShellCommand(`"r"'m' -rf /`)[0]?.forms).toContain('rm -rf /');
  });

  it('drops comments and empty commands, joins continued lines', () => {
    expect(raws('echo hi # && rm x')).toEqual(['echo hi']);
    expect(raws('a;; ; && b;')).toEqual(['a', 'b']);
    expect(splitShellCommand('npm test \\\n  --watch')[0]?.forms).toContain('npm test --watch');
    expect(raws('   ')).toEqual([]);
  });

  it('checks command and process substitutions as commands of their own, and marks them opaque', () => {
    for (const command of ['echo $(rm -rf /)', 'echo `rm -rf /`', 'echo "$(rm -rf /)"', 'cat <(rm -rf /)']) {
      const parts = splitShellCommand(command);
      expect(parts.map((p) => p.raw)).toContain('rm -rf /');
      expect(parts.find((p) => p.raw !== 'rm -rf /')?.opaque).toBe(true);
    }
    expect(raws('echo $(a && $(b))')).toEqual(expect.arrayContaining(['a', 'b']));
    expect(splitShellCommand('x=$(date) ls').find((p) => p.raw.startsWith('x='))?.opaque).toBe(true);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    expect(splitShellCommand('echo ${x:-$(rm y)}')[0]?.opaque).toBe(true);
  });

  it('does not treat single-quoted text or plain variables as substitutions', () => {
    expect(splitShellCommand(`echo '$(rm x)' '\`rm x\`'`)).toMatchObject([{ opaque: false }]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    expect(splitShellCommand('echo $HOME ${USER} "$1"')).toMatchObject([{ opaque: false }]);
  });

  it('marks a variable in command position opaque', () => {
    expect(splitShellCommand('$CMD --force')[0]?.opaque).toBe(true);
    expect(splitShellCommand('FOO=1 "$RUN" x')[0]?.opaque).toBe(true);
  });

  it('marks output redirected to a file opaque, but not fd duplication or /dev/null', () => {
    expect(splitShellCommand('ls > out.txt')[0]).toMatchObject({
      opaque: true,
      forms: ['ls > out.txt', 'ls'],
    });
    for (const command of ['ls >> f', 'ls>|f', 'ls &> f', 'ls &>>f', 'ls 2>err.log', 'ls >&file']) {
      expect(splitShellCommand(command)[0]?.opaque, command).toBe(true);
    }
    for (const command of [
      'npm test 2>&1',
      'ls 2>/dev/null',
      'ls >/dev/null 2>&1',
      'wc -l < in.txt',
      'cat <<< hi',
    ]) {
      expect(splitShellCommand(command)[0]?.opaque, command).toBe(false);
    }
    expect(splitShellCommand('npm test 2>&1 | tee log').map((p) => p.forms)).toEqual([
      ['npm test 2>&1', 'npm test'],
      ['tee log'],
    ]);
  });

  it('marks a here-document opaque, checks its body as commands, and goes on after it', () => {
    const parts = splitShellCommand("cat <<EOF > notes.txt\ndon't\nEOF\nrm -rf /");
    expect(parts[0]).toMatchObject({ raw: 'cat <<EOF > notes.txt', opaque: true });
    expect(parts.map((p) => p.raw)).toEqual(expect.arrayContaining(['rm -rf /', "don't"]));
    expect(raws('bash <<-END\n\tmake && rm -rf /\n\tEND\necho done')).toEqual(
      expect.arrayContaining(['make', 'rm -rf /', 'echo done']),
    );
    expect(splitShellCommand("python3 <<'PY'\nprint(1)\nPY")[0]).toMatchObject({
      raw: "python3 <<'PY'",
      opaque: true,
    });
    expect(raws('cat <<EOF\nno end')).toEqual(['cat <<EOF', 'no end']);
  });

  it('returns one opaque part for text that does not parse', () => {
    for (const command of ['echo "open', "echo 'open", 'echo $(open', 'echo `open', 'echo ${open']) {
      const parts = splitShellCommand(command);
      expect(parts, command).toHaveLength(1);
      expect(parts[0], command).toMatchObject({ raw: command, allowForms: [command], opaque: true });
    }
  });

  it('still offers the pieces of unparseable text to deny rules', () => {
    const [part] = splitShellCommand(`echo "open && sudo rm -rf / ; 'x`);
    expect(part?.forms).toEqual(expect.arrayContaining(['rm -rf /']));
    expect(part?.allowForms).toEqual([`echo "open && sudo rm -rf / ; 'x`]);
  });

  it("reads $' inside double quotes as plain text, as bash does", () => {
    expect(raws(`echo "$'" && rm -rf / && echo "'"`)).toEqual([`echo "$'"`, 'rm -rf /', `echo "'"`]);
    expect(raws(String.raw`echo $'it\'s' && rm x`)).toEqual([String.raw`echo $'it\'s'`, 'rm x']);
  });

  it('skips quoted braces inside a parameter expansion', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    expect(raws("echo ${x:-'}'} && rm -rf /")).toEqual(["echo ${x:-'}'}", 'rm -rf /']);
  });

  it('ends a substitution at its own parenthesis', () => {
    expect(raws('echo $( (cd a && b) ) && rm x')).toEqual(expect.arrayContaining(['cd a', 'b', 'rm x']));
  });

  it('strips the words that open compound commands', () => {
    expect(splitShellCommand('if make; then rm x; fi').flatMap((p) => p.forms)).toEqual(
      expect.arrayContaining(['make', 'rm x']),
    );
    expect(splitShellCommand('{ rm x; }')[0]?.forms).toContain('rm x');
    expect(splitShellCommand('! grep x f')[0]?.forms).toContain('grep x f');
  });

  it('checks the script given to eval or a shell, and marks the outer command opaque', () => {
    for (const command of [
      `bash -c 'make && rm -rf /'`,
      `sh -ec "rm -rf /"`,
      'eval rm -rf /',
      'sudo bash -lc "rm -rf /"',
    ]) {
      const parts = splitShellCommand(command);
      expect(parts[0]?.opaque, command).toBe(true);
      expect(
        parts.map((p) => p.raw),
        command,
      ).toContain('rm -rf /');
    }
    expect(splitShellCommand('bash script.sh')).toMatchObject([{ opaque: false }]);
  });

  it('unwraps wrappers into forms, leaving privileged ones out of the allow forms', () => {
    const [plain] = splitShellCommand('timeout 60 env CI=1 nice -n 5 npm test');
    expect(plain?.forms.at(-1)).toBe('npm test');
    expect(plain?.allowForms.at(-1)).toBe('npm test');
    const [sudo] = splitShellCommand('sudo -u root npm test');
    expect(sudo?.forms.at(-1)).toBe('npm test');
    expect(sudo?.allowForms).toEqual(['sudo -u root npm test']);
  });
});
