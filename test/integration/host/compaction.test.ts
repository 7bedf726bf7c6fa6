import { afterEach, describe, expect, it } from 'vitest';
import { ChatSession } from '../../../src/agent/chat-session.js';
import type { RunSink } from '../../../src/agent/run-sink.js';
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
    done: (_id, outcome, error) => seen.done.push({ outcome, error }),
  };
  return { seen, sink };
}

// 6,000 estimated tokens (18,000 ASCII bytes) per prompt, whatever the tag.
const word = (tag: string) => tag.padEnd(7, '_');
const big = (tag: string) => `${word(tag)} `.repeat(2250);
const twice = (tag: string) => `${word(tag)} ${word(tag)}`;

async function chatWith(turns: ScriptedResponse[], config: Record<string, unknown>) {
  server = await startLlmServer({ turns });
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
