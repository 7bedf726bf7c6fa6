import { describe, expect, it } from 'vitest';
import { ChatAccumulator } from '../../../src/providers/chat-accumulator.js';
import { ThinkTagSplitter } from '../../../src/providers/think-tag-splitter.js';

function split(chunks: string[]) {
  const s = new ThinkTagSplitter();
  const pieces = [...chunks.flatMap((c) => s.push(c)), ...s.flush()];
  const join = (kind: string) =>
    pieces
      .filter((p) => p.kind === kind)
      .map((p) => p.text)
      .join('');
  return { text: join('text'), reasoning: join('reasoning') };
}

describe('inline <think> blocks', () => {
  it.each([
    [['<think>plan</think>\n\nanswer']],
    [['\n<th', 'ink>pl', 'an</th', 'ink>', '\n\nans', 'wer']],
    [['<think>', 'plan', '</think>answer']],
  ])('splits %j into reasoning and text', (chunks) => {
    expect(split(chunks)).toEqual({ text: 'answer', reasoning: 'plan' });
  });

  it('leaves text alone when it does not start with a think block', () => {
    expect(split(['Use <think> tags like ', '<think>x</think>'])).toEqual({
      text: 'Use <think> tags like <think>x</think>',
      reasoning: '',
    });
    expect(split(['<', 'b>bold</b>'])).toEqual({ text: '<b>bold</b>', reasoning: '' });
  });

  it('keeps inline thinking out of the committed text', () => {
    const acc = new ChatAccumulator('p');
    acc.push({ choices: [{ index: 0, delta: { content: '<think>hmm' } }] });
    acc.push({ choices: [{ index: 0, delta: { content: '</think>Hi.' }, finish_reason: 'stop' }] });
    const out = acc.finish(true);
    expect(out.text).toBe('Hi.');
    expect(out.reasoning).toBe('hmm');
  });
});
