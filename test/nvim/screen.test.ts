import { afterEach, describe, expect, it } from 'vitest';
import { type LlmServer, startLlmServer } from '../helpers/llm-server.js';
import { nvimBinary, nvimVersion, waitFor } from '../helpers/nvim.js';
import { startTui, type TuiNvim, tmuxAvailable } from '../helpers/tui.js';

// The main views as a user sees them: Neovim's own terminal UI in tmux, keys typed for real.
describe(`screen on Neovim ${nvimVersion(nvimBinary())}`, () => {
  let tui: TuiNvim | undefined;
  let server: LlmServer | undefined;
  afterEach(async () => {
    await tui?.close();
    await server?.close();
    tui = server = undefined;
  });

  const screenText = () => tui?.screen().join('\n') ?? '';

  it('tmux is installed (npm test and .ci/run install it)', () => {
    expect(tmuxAvailable).toBe(true);
  });

  it('the chat split, a streamed answer, the permission float and the status line', async () => {
    server = await startLlmServer({
      turns: [
        {
          text: 'I will **write** the file.',
          toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'hi.txt', content: 'hi\n' } }],
        },
        { text: 'Wrote `hi.txt`.' },
      ],
    });
    tui = await startTui(
      { AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'scripted' },
      { columns: 170, lines: 40 },
    );
    tui.keys(':AgentChat', 'Enter');
    await waitFor(() => screenText().includes('agent://input'), 5000, 'chat split');
    tui.keys(':Agent mode agent', 'Enter');
    tui.keys('i', 'please write hi.txt', 'C-s');
    await waitFor(() => screenText().includes('Allow write_file?'), 10_000, 'permission float');
    const prompt = screenText();
    expect(prompt).toContain('please write hi.txt');
    expect(prompt).toContain('+hi');
    expect(prompt, prompt).toMatch(/allow\sonce/);
    // It came up within a second of typing: it takes keys once the typing has paused.
    await new Promise((r) => setTimeout(r, 450));
    tui.keys('o');
    await waitFor(() => screenText().includes('Wrote hi.txt.'), 10_000, 'answer');
    const done = screenText();
    // Markdown is concealed (bold markers and backticks hidden), the tool line is folded.
    expect(done).toContain('I will write the file.');
    expect(done).toMatch(/✓ write_file hi\.txt/);
    expect(done).toContain('▸ details');
    expect(done, done).toMatch(/agent · env\/scripted · \S+ in \/ \S+ out/);
    expect(done).toContain('Changed: hi.txt');
  });
});
