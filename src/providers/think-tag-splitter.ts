/**
 * Reasoning models served without a reasoning parser (DeepSeek-R1 distills and Qwen3 on Ollama,
 * llama.cpp or vLLM) put their thinking inline as `<think>...</think>` at the start of the
 * content. This splits it back out so reasoning never lands in the history's text. Only a
 * block at the very start counts: a `<think>` later in an answer is ordinary text.
 */
const OPEN = '<think>';
const CLOSE = '</think>';

export interface SplitPiece {
  kind: 'text' | 'reasoning';
  text: string;
}

export class ThinkTagSplitter {
  /** `after`: the block just closed; the blank lines models put after it are dropped. */
  private state: 'start' | 'inside' | 'after' | 'outside' = 'start';
  private pending = '';

  push(chunk: string): SplitPiece[] {
    if (this.state === 'after') {
      const rest = chunk.replace(/^\s+/, '');
      if (!rest) return [];
      this.state = 'outside';
      return [{ kind: 'text', text: rest }];
    }
    if (this.state === 'outside') return chunk ? [{ kind: 'text', text: chunk }] : [];
    this.pending += chunk;
    const out: SplitPiece[] = [];
    if (this.state === 'start') {
      const lead = this.pending.trimStart();
      if (lead.length < OPEN.length && OPEN.startsWith(lead)) return out;
      if (!lead.startsWith(OPEN)) {
        this.state = 'outside';
        out.push({ kind: 'text', text: this.pending });
        this.pending = '';
        return out;
      }
      this.state = 'inside';
      this.pending = lead.slice(OPEN.length);
    }
    const end = this.pending.indexOf(CLOSE);
    if (end !== -1) {
      if (end > 0) out.push({ kind: 'reasoning', text: this.pending.slice(0, end) });
      const rest = this.pending.slice(end + CLOSE.length).replace(/^\s+/, '');
      this.state = rest ? 'outside' : 'after';
      this.pending = '';
      if (rest) out.push({ kind: 'text', text: rest });
      return out;
    }
    // Hold back what could be the start of `</think>` split across chunks.
    let keep = 0;
    for (let n = Math.min(CLOSE.length - 1, this.pending.length); n > 0; n--) {
      if (this.pending.endsWith(CLOSE.slice(0, n))) {
        keep = n;
        break;
      }
    }
    const ready = this.pending.slice(0, this.pending.length - keep);
    this.pending = this.pending.slice(this.pending.length - keep);
    if (ready) out.push({ kind: 'reasoning', text: ready });
    return out;
  }

  /** End of stream: whatever is held back is flushed as what it was heading to be. */
  flush(): SplitPiece[] {
    const rest = this.pending;
    this.pending = '';
    if (!rest) return [];
    return [{ kind: this.state === 'inside' ? 'reasoning' : 'text', text: rest }];
  }
}
