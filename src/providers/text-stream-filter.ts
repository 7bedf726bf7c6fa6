/**
 * Live view of a text-fallback reply: streams prose until something that may be tool-call markup
 * starts, then holds the rest back. The committed message carries the authoritative text with
 * the markup removed, so anything held back here that was not markup still reaches the user.
 */
const MARKERS = ['<tool_call>', '<function=', '```', '{"name"', '{ "name"'];

export interface TextFilter {
  push(text: string): string;
}

export function holdBackMarkup(extraMarkers: readonly string[] = []): TextFilter {
  const markers = [...MARKERS, ...extraMarkers];
  let pending = '';
  let holding = false;
  return {
    push(text: string): string {
      if (holding) return '';
      pending += text;
      let cut = -1;
      for (const m of markers) {
        const at = pending.indexOf(m);
        if (at !== -1 && (cut === -1 || at < cut)) cut = at;
      }
      if (cut !== -1) {
        holding = true;
        return pending.slice(0, cut);
      }
      // Keep a tail that could be the start of a marker split across chunks.
      let keep = 0;
      for (const m of markers) {
        for (let n = Math.min(m.length - 1, pending.length); n > keep; n--) {
          if (pending.endsWith(m.slice(0, n))) {
            keep = n;
            break;
          }
        }
      }
      const out = pending.slice(0, pending.length - keep);
      pending = pending.slice(pending.length - keep);
      return out;
    },
  };
}
