#!/usr/bin/env node
// The edit corpus (test/fixtures/edits) scored for our edit_file / apply_patch against a plain
// exact-match baseline on the same cases in the same run. Baseline: edit_file replaces old_text
// only where it occurs exactly once byte for byte (every occurrence with replace_all); apply_patch
// applies unified diffs with the `diff` package (fuzzFactor 0, no line-ending conversion) and
// reads "*** Begin Patch" chunks exactly (anchor and old lines equal, first place after the
// previous chunk, as the format's reference reader does before its fuzzy passes); anything else
// is refused. Outcomes per case: landed first time, wrongly applied (changed files but not into
// the expected result, or changed anything on a case that must be refused), refused correctly,
// wrongly refused. Exits 1 if our tools fail to land a case that should land or apply anything
// wrongly. Goal from the issue: every should-land case lands, zero wrongly applied.
import path from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import { fmt, importTs, median, root } from './lib.mjs';

const ROUNDS = Number(process.env.AGENT_BENCH_ROUNDS ?? 5);
const corpusDir = path.join(root, 'test/fixtures/edits');
const { loadCorpus, runOurs } = await importTs('bench/edits-corpus-entry.ts');
const cases = loadCorpus(corpusDir);

// ---- the baseline, in memory: files as strings (a BOM stays a U+FEFF character, bytes round-trip)

const FAKE_ROOT = '/project';

class Refused extends Error {}

function relPath(given) {
  let p = given.trim();
  if (p.startsWith(`${FAKE_ROOT}/`)) p = p.slice(FAKE_ROOT.length + 1);
  const norm = path.posix.normalize(p);
  if (path.posix.isAbsolute(norm) || norm === '..' || norm.startsWith('../')) throw new Refused('outside');
  return norm;
}

function baselineEdit(files, args) {
  const file = relPath(String(args.path ?? args.file_path ?? args.filename ?? ''));
  const oldText = args.old_text ?? args.old_string ?? args.old_str;
  const newText = args.new_text ?? args.new_string ?? args.new_str;
  if (typeof oldText !== 'string' || oldText === '' || typeof newText !== 'string') throw new Refused('args');
  const text = files.get(file);
  if (text === undefined) throw new Refused('missing');
  const count = text.split(oldText).length - 1;
  if (count === 0 || (count > 1 && !args.replace_all)) throw new Refused('match');
  files.set(file, text.split(oldText).join(newText));
}

function baselineBeginPatch(files, text) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let i = lines.indexOf('*** Begin Patch');
  if (i === -1) throw new Refused('parse');
  for (i++; i < lines.length && lines[i] !== '*** End Patch'; ) {
    const header = /^\*\*\* (Update|Add|Delete) File: (.+)$/.exec(lines[i]);
    if (!header) throw new Refused('parse');
    const file = relPath(header[2]);
    const body = [];
    for (
      i++;
      i < lines.length &&
      lines[i] !== '*** End Patch' &&
      !/^\*\*\* (Update|Add|Delete) File: /.test(lines[i]);
      i++
    ) {
      body.push(lines[i]);
    }
    if (header[1] === 'Add') {
      if (files.has(file) || body.some((l) => !l.startsWith('+'))) throw new Refused('add');
      files.set(file, body.map((l) => `${l.slice(1)}\n`).join(''));
    } else if (header[1] === 'Delete') {
      if (!files.has(file) || body.length > 0) throw new Refused('delete');
      files.delete(file);
    } else {
      if (!files.has(file)) throw new Refused('missing');
      files.set(file, updateExact(files.get(file), body));
    }
  }
}

/** One Update File section, read exactly: `@@ anchor`, then " ", "-", "+" lines; End of File pins. */
function updateExact(text, body) {
  const fileLines = text.split('\n');
  const hasFinalNewline = fileLines[fileLines.length - 1] === '';
  if (hasFinalNewline) fileLines.pop();
  const chunks = [];
  let chunk;
  for (const line of body) {
    if (line === '@@' || line.startsWith('@@ ')) {
      chunk = { anchor: line.slice(3), ops: [], atEnd: false };
      chunks.push(chunk);
    } else if (line === '*** End of File') {
      if (!chunk) throw new Refused('parse');
      chunk.atEnd = true;
      chunk = undefined;
    } else if (/^[ +-]/.test(line) || line === '') {
      if (!chunk) {
        chunk = { anchor: '', ops: [], atEnd: false };
        chunks.push(chunk);
      }
      chunk.ops.push(line === '' ? { op: ' ', text: '' } : { op: line[0], text: line.slice(1) });
    } else {
      throw new Refused('parse');
    }
  }
  if (chunks.length === 0) throw new Refused('parse');
  let cursor = 0;
  for (const c of chunks) {
    if (c.anchor !== '') {
      const at = fileLines.indexOf(c.anchor, cursor);
      if (at === -1) throw new Refused('anchor');
      cursor = at + 1;
    }
    const old = c.ops.filter((o) => o.op !== '+').map((o) => o.text);
    const fits = (p) => old.every((l, k) => fileLines[p + k] === l);
    let at = -1;
    if (c.atEnd) at = fits(fileLines.length - old.length) ? fileLines.length - old.length : -1;
    else if (old.length === 0) at = c.anchor !== '' ? cursor : fileLines.length;
    else for (let p = cursor; p + old.length <= fileLines.length && at === -1; p++) if (fits(p)) at = p;
    if (at < 0) throw new Refused('match');
    const replacement = c.ops.filter((o) => o.op !== '-').map((o) => o.text);
    fileLines.splice(at, old.length, ...replacement);
    cursor = at + replacement.length;
  }
  return fileLines.join('\n') + (hasFinalNewline || fileLines.length === 0 ? '\n' : '');
}

function baselineUnified(files, text) {
  const patches = parsePatch(text);
  const strip = (name) => (name ?? '').replace(/^[ab]\//, '');
  let touched = 0;
  for (const p of patches) {
    if (!p.oldFileName && !p.newFileName) continue;
    const oldName = p.oldFileName === '/dev/null' ? undefined : relPath(strip(p.oldFileName));
    const newName = p.newFileName === '/dev/null' ? undefined : relPath(strip(p.newFileName));
    if (oldName && newName && oldName !== newName) throw new Refused('rename');
    const name = oldName ?? newName;
    if (!name) throw new Refused('parse');
    if (!oldName && files.has(name)) throw new Refused('exists');
    if (oldName && !files.has(name)) throw new Refused('missing');
    if (p.hunks.length === 0 && oldName && newName) throw new Refused('parse');
    const result = applyPatch(oldName ? files.get(name) : '', p, {
      fuzzFactor: 0,
      autoConvertLineEndings: false,
    });
    if (result === false) throw new Refused('match');
    if (newName) files.set(name, result);
    else if (result === '') files.delete(name);
    else throw new Refused('delete');
    touched++;
  }
  if (touched === 0) throw new Refused('parse');
}

function runBaseline(c) {
  const files = new Map([...c.before].map(([rel, bytes]) => [rel, bytes.toString('utf8')]));
  const args = JSON.parse(JSON.stringify(c.args).replaceAll('{{root}}', FAKE_ROOT));
  const started = performance.now();
  let ok = true;
  try {
    if (c.tool === 'edit_file') baselineEdit(files, args);
    else {
      const text = String(args.patch ?? args.input ?? args.diff ?? '');
      if (text.includes('*** Begin Patch')) baselineBeginPatch(files, text);
      else baselineUnified(files, text);
    }
  } catch {
    // A refusal, or the reader giving up on text it cannot parse: either way nothing is written.
    ok = false;
  }
  const ms = performance.now() - started;
  const tree = ok ? new Map([...files].map(([rel, s]) => [rel, Buffer.from(s, 'utf8')])) : c.before;
  return { ms, ok, changed: !sameTree(tree, c.before), asExpected: sameTree(tree, c.after) };
}

function sameTree(a, b) {
  return a.size === b.size && [...b].every(([rel, bytes]) => a.get(rel)?.equals(bytes));
}

// ---- scoring

function outcome(c, run) {
  if (c.expect === 'landed') {
    if (run.changed && run.asExpected) return 'landed';
    return run.changed ? 'wrongly applied' : 'wrongly refused';
  }
  return run.changed ? 'wrongly applied' : 'refused';
}

const rows = [];
for (const c of cases) {
  const oursRuns = [];
  const baseRuns = [];
  for (let r = 0; r < ROUNDS; r++) {
    oursRuns.push(await runOurs(c));
    baseRuns.push(runBaseline(c));
  }
  const ours = oursRuns[0];
  const base = baseRuns[0];
  rows.push({
    c,
    ours: outcome(c, ours),
    oursMs: median(oursRuns.map((r) => r.ms)),
    kindMismatch: c.expect === 'refused' && ours.error_kind !== c.error_kind ? ours.error_kind : undefined,
    base: outcome(c, base),
    baseMs: median(baseRuns.map((r) => r.ms)),
  });
}

const pad = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));
const out = (s = '') => process.stdout.write(`${s}\n`);
out(`edit corpus: ${cases.length} cases, median of ${ROUNDS} runs per case`);
out();
out(
  `${pad('case', 56)} ${pad('tool', 11)} ${pad('expect', 7)} ${pad('ours', 16)} ${'ms'.padStart(7)}   ${pad('baseline', 16)} ${'ms'.padStart(7)}`,
);
for (const r of rows) {
  const note = r.kindMismatch ? ` (error_kind ${r.kindMismatch}, expected ${r.c.error_kind})` : '';
  out(
    `${pad(r.c.id, 56)} ${pad(r.c.tool, 11)} ${pad(r.c.expect === 'landed' ? 'land' : 'refuse', 7)} ${pad(r.ours, 16)} ${r.oursMs.toFixed(2).padStart(7)}   ${pad(r.base, 16)} ${r.baseMs.toFixed(2).padStart(7)}${note}`,
  );
}

const shouldLand = rows.filter((r) => r.c.expect === 'landed').length;
const shouldRefuse = rows.length - shouldLand;
const count = (key, value) => rows.filter((r) => r[key] === value).length;
const line = (label, value, total) => {
  const cell = (key) => `${count(key, value)}${total ? `/${total}` : ''}`;
  out(`${pad(label, 22)} ${cell('ours').padStart(8)} ${cell('base').padStart(10)}`);
};
out();
out(`${pad('', 22)} ${'ours'.padStart(8)} ${'baseline'.padStart(10)}`);
line('landed first time', 'landed', shouldLand);
line('wrongly applied', 'wrongly applied');
line('refused correctly', 'refused', shouldRefuse);
line('wrongly refused', 'wrongly refused');
const total = (key) => rows.reduce((s, r) => s + r[key], 0);
out(
  `${pad('time per case (median)', 22)} ${fmt(median(rows.map((r) => r.oursMs))).padStart(8)} ${fmt(median(rows.map((r) => r.baseMs))).padStart(10)}`,
);
out(
  `${pad('time, whole corpus', 22)} ${fmt(total('oursMs')).padStart(8)} ${fmt(total('baseMs')).padStart(10)}`,
);

const failed = count('ours', 'wrongly applied') + count('ours', 'wrongly refused');
out();
out(
  failed === 0
    ? 'every should-land case landed, nothing wrongly applied (meets target)'
    : `${failed} case(s) missed by our tools (MISSES target)`,
);
process.exit(failed === 0 ? 0 : 1);
