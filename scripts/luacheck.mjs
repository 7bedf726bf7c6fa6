#!/usr/bin/env node
// Lints the Lua side with luacheck (Debian's lua-check). Exits 0 with a notice when luacheck is not
// installed, so `npm run lint` works on a machine without it; scripts/test.mjs installs it as root.
import { spawnSync } from 'node:child_process';

const which = spawnSync('sh', ['-c', 'command -v luacheck'], { encoding: 'utf8' });
if (!which.stdout.trim()) {
  process.stderr.write('luacheck not found (Debian: apt-get install lua-check); Lua lint skipped\n');
  process.exit(process.env.AGENT_REQUIRE_LUACHECK ? 1 : 0);
}
const res = spawnSync('luacheck', ['--no-color', '-q', 'lua', 'plugin', 'fixtures/minimal_init.lua'], {
  stdio: 'inherit',
});
process.exit(res.status ?? 1);
