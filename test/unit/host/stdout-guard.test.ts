import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

describe('guardStdout', () => {
  it('lets only the RPC writer reach fd 1 and sends console output to the log', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-guard-'));
    const entry = path.join(dir, 'entry.ts');
    fs.writeFileSync(
      entry,
      `import { guardStdout } from ${JSON.stringify(path.join(root, 'src/host/stdout-guard.ts'))};
       import { createLogger } from ${JSON.stringify(path.join(root, 'src/util/logger.ts'))};
       const logger = createLogger(process.argv[2]);
       const rpc = guardStdout(logger);
       console.log('stray console.log');
       process.stdout.write('stray write');
       rpc.write(Buffer.from('RPC-BYTES'), () => process.exit(0));`,
    );
    const out = path.join(dir, 'entry.cjs');
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: out,
      logLevel: 'error',
    });
    const log = path.join(dir, 'agent.log');
    const res = spawnSync(process.execPath, [out, log], { encoding: 'utf8' });
    expect(res.status).toBe(0);
    expect(res.stdout).toBe('RPC-BYTES');
    const text = fs.readFileSync(log, 'utf8');
    expect(text).toContain('stray console.log');
    expect(text).toContain('stray write');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
