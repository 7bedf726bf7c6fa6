import { afterEach, describe, expect, it } from 'vitest';
import { nvimBinary, nvimVersion, startNvim, type TestNvim } from '../helpers/nvim.js';

describe(`:checkhealth agent on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let t: TestNvim | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const report = async (tn: TestNvim) => {
    await tn.nvim.command('checkhealth agent');
    return tn.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`);
  };

  it('reports versions, the built host, a live ping and tools', async () => {
    t = await startNvim({ env: { OPENAI_API_KEY: 'sk-health-check-secret-value-123' } });
    const text = await report(t);
    expect(text).toMatch(/OK Neovim \d+\.\d+\.\d+/);
    expect(text).toMatch(/OK Node\.js v\d+/);
    expect(text).toMatch(/OK dist\/host\.cjs is built and current/);
    expect(text).toMatch(/OK host answers \(pid \d+, version /);
    expect(text).toContain('found OPENAI_API_KEY in the environment');
    expect(text).toMatch(/(OK|WARNING) git/);
    expect(text).not.toContain('sk-health-check-secret-value-123');
  });

  it('names what is wrong: a provider without a key, a missing Node', async () => {
    t = await startNvim();
    await t.lua(
      `require('agent').setup({ providers = { oa = { type = 'openai' }, local_llm = { type = 'ollama' } }, node = '/nonexistent/node' })`,
    );
    const text = await report(t);
    expect(text).toMatch(/ERROR oa \(openai\): no API key/);
    expect(text).toContain('Set OPENAI_API_KEY, api_key or api_key_cmd');
    expect(text).toMatch(/OK local_llm \(ollama\): no key needed/);
    expect(text).toMatch(/ERROR Node\.js not found \("\/nonexistent\/node"\)/);
    expect(text).not.toContain('host answers');
  });
});
