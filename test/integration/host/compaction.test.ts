import { afterEach, describe, expect, it } from 'vitest';
import { ChatSession } from '../../../src/agent/chat-session.js';
import type { RunSink, RunStatus } from '../../../src/agent/run-sink.js';
import { createLogger } from '../../../src/util/logger.js';
import { type LlmServer, type ScriptedResponse, startLlmServer } from '../../helpers/llm-server.js';

const logger = createLogger(undefined);
let server: LlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function recorder() {
  const seen = {
    notices: [] as string[],
    status: [] as RunStatus[],
    done: [] as { outcome: string; error?: string | undefined }[],
    text: '',
  };
  const sink: RunSink = {
    started: () => undefined,
    text: (_id, t) => {
      seen.text += t;
    },
    reasoning: () => undefined,
    notice: (t) => seen.notices.push(t),
    status: (_id, st) => seen.status.push(st),
    done: (_id, outcome, error) => seen.done.push({ outcome, error }),
  };
  return { seen, sink };
}

// 6,000 estimated tokens (18,000 ASCII bytes) per prompt, whatever the tag.
const word = (tag: string) => tag.padEnd(7, '_');
const big = (tag: string) => `${word(tag)} `.repeat(2250);
const twice = (tag: string) => `${word(tag)} ${word(tag)}`;

/**
 * The server counts input tokens as request bytes / `bytesPerInputToken` (3 by default, close to
 * the host's own estimate, so the budget decisions below are the same either way).
 */
async function chatWith(turns: ScriptedResponse[], config: Record<string, unknown>, bytesPerInputToken = 3) {
  server = await startLlmServer({ turns }, { bytesPerInputToken });
  const chat = new ChatSession({
    env: { AGENT_NVIM_NO_PROBE: '1', AGENT_NVIM_BASE_URL: server.url, AGENT_NVIM_MODEL: 'm' },
    logger,
    cwd: '/tmp',
  });
  chat.configure({ cwd: '/tmp', ...config });
  return chat;
}

const requestText = (i: number) => JSON.stringify(server?.modelRequests()[i]?.body);

describe('compaction', () => {
  it('summarises older whole turns above 80% of the budget and keeps recent ones verbatim', async () => {
    const chat = await chatWith(
      [{ text: 'a1' }, { text: 'a2' }, { text: 'SUMMARY-ONE objectives and decisions' }, { text: 'a3' }],
      { context_budget: 22000, keep_turns: 1 },
    );
    for (const [i, tag] of ['alpha', 'beta', 'gamma'].entries()) {
      const r = recorder();
      await chat.prompt({ id: String(i), text: big(tag) }, r.sink);
      expect(r.seen.done[0]?.outcome).toBe('done');
      if (i === 2) expect(r.seen.notices.some((n) => n.includes('Summarised 1 earlier turn(s)'))).toBe(true);
    }
    // Request 2 was the summary: no tools, output capped, reasoning never asked for.
    const summaryReq = server?.modelRequests()[2]?.body as {
      tools?: unknown[];
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    expect(summaryReq.tools ?? []).toEqual([]);
    expect(summaryReq.max_tokens ?? summaryReq.max_completion_tokens).toBe(2048);
    expect(requestText(2)).toContain('alpha');
    // The next request carries the summary, the kept turn and the current one, not the oldest.
    const after = requestText(3);
    expect(after).toContain('SUMMARY-ONE');
    expect(after).not.toContain(twice('alpha'));
    expect(after).toContain(twice('beta'));
    expect(after).toContain(twice('gamma'));
  });

  it('a failed or empty summary leaves the history unchanged, and a later attempt works', async () => {
    const chat = await chatWith(
      [
        { text: 'a1' },
        { text: 'a2' },
        { status: 400, body: { error: { message: 'bad' } } },
        { text: 'a3' },
        { text: '' },
        { text: 'a4' },
        { text: 'SUMMARY-TWO' },
        { text: 'a5' },
      ],
      { context_budget: 25000, keep_turns: 1 },
    );
    for (const [i, tag] of ['one', 'two', 'three'].entries())
      await chat.prompt({ id: String(i), text: big(tag) }, recorder().sink);
    // Third prompt: compaction failed (400), history intact and the run still fit.
    expect(requestText(3)).toContain(twice('one'));
    const r = recorder();
    await chat.prompt({ id: '4', text: 'short' }, r.sink);
    // Fourth: the summary came back empty, so again nothing was replaced.
    expect(r.seen.notices.some((n) => n.includes('empty summary'))).toBe(true);
    expect(requestText(5)).toContain(twice('one'));
    await chat.prompt({ id: '5', text: 'short again' }, recorder().sink);
    expect(requestText(7)).toContain('SUMMARY-TWO');
    expect(requestText(7)).not.toContain(twice('one'));
  });

  it('stops with what to change when the recent turns alone cannot fit', async () => {
    const chat = await chatWith([{ text: 'never' }], { context_budget: 2000, keep_turns: 2 });
    const r = recorder();
    await chat.prompt({ id: '1', text: big('huge') }, r.sink);
    expect(r.seen.done[0]?.outcome).toBe('failed');
    expect(r.seen.done[0]?.error).toMatch(
      /Raise the context budget, keep fewer recent turns, or start over with :Agent clear/,
    );
    expect(server?.modelRequests()).toHaveLength(0);
  });

  it('a later compaction keeps the earlier summary and adds to it', async () => {
    const chat = await chatWith(
      [
        { text: 'a1' },
        { text: 'a2' },
        { text: 'FIRST-SUMMARY' },
        { text: 'a3' },
        { text: 'SECOND-SUMMARY' },
        { text: 'a4' },
      ],
      { context_budget: 22000, keep_turns: 1 },
    );
    for (const [i, tag] of ['p1', 'p2', 'p3', 'p4'].entries())
      await chat.prompt({ id: String(i), text: big(tag) }, recorder().sink);
    expect(requestText(4)).toContain('FIRST-SUMMARY');
    const last = requestText(5);
    expect(last).toContain('FIRST-SUMMARY');
    expect(last).toContain('SECOND-SUMMARY');
    expect(last).not.toContain(twice('p2'));
    expect(last).toContain(twice('p4'));
  });

  it(':Agent compact summarises on demand even below the threshold', async () => {
    const chat = await chatWith([{ text: 'a1' }, { text: 'a2' }, { text: 'ON-DEMAND' }, { text: 'a3' }], {
      keep_turns: 1,
    });
    await chat.prompt({ id: '1', text: 'first question' }, recorder().sink);
    await chat.prompt({ id: '2', text: 'second question' }, recorder().sink);
    const r = recorder();
    await chat.compact('c', r.sink);
    expect(r.seen.notices.some((n) => n.includes('ON-DEMAND'))).toBe(true);
    await chat.prompt({ id: '3', text: 'third' }, recorder().sink);
    expect(requestText(3)).toContain('ON-DEMAND');
    expect(requestText(3)).not.toContain('first question');
  });
});

describe("the budget anchored on the provider's count", () => {
  const summarised = (notices: string[]) => notices.some((n) => n.includes('Summarised'));

  it('compacts when the provider counts more than our estimate', async () => {
    // 1.5 bytes per token: the provider counts about twice what bytes/3 estimates.
    const turns = [{ text: 'a1' }, { text: 'a2' }, { text: 'SUMMARY-HIGH' }, { text: 'a3' }];
    const chat = await chatWith(turns, { context_budget: 40000, keep_turns: 1 }, 1.5);
    const seen = [];
    for (const [i, tag] of ['alpha', 'beta', 'gamma'].entries()) {
      const r = recorder();
      await chat.prompt({ id: String(i), text: big(tag) }, r.sink);
      expect(r.seen.done[0]?.outcome).toBe('done');
      seen.push(r.seen);
    }
    const status = seen[1]?.status.at(-1) as RunStatus;
    // Our estimate alone stays under 80% of the budget; the anchored figure does not.
    expect(summarised(seen[1]?.notices ?? [])).toBe(false);
    expect(summarised(seen[2]?.notices ?? [])).toBe(true);
    expect(requestText(2)).toContain('alpha');
    expect(requestText(3)).toContain('SUMMARY-HIGH');
    // The status shows the provider's count of the last request beside our smaller estimate.
    expect(status.context_tokens).toBeGreaterThan(status.context_estimate);
  });

  it('does not compact when the provider counts less than our estimate', async () => {
    // 6 bytes per token: the provider counts half of what bytes/3 estimates. The first test's
    // budget, where the estimate alone summarises at the third prompt.
    const turns = [{ text: 'a1' }, { text: 'a2' }, { text: 'a3' }];
    const chat = await chatWith(turns, { context_budget: 22000, keep_turns: 1 }, 6);
    for (const [i, tag] of ['alpha', 'beta', 'gamma'].entries()) {
      const r = recorder();
      await chat.prompt({ id: String(i), text: big(tag) }, r.sink);
      expect(r.seen.done[0]?.outcome).toBe('done');
      expect(summarised(r.seen.notices)).toBe(false);
    }
    expect(requestText(2)).toContain(twice('alpha'));
  });
});
