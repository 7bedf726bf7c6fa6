/**
 * Shrinks a JSON-able result until its serialisation fits `maxBytes`: the longest strings are cut
 * in the middle first (head and tail carry the most signal in logs and files), then the longest
 * arrays lose their tail. Tools cap their own output sensibly; this is the backstop that keeps one
 * call from flooding the model's context.
 */
export function capOutput(
  value: Record<string, unknown>,
  maxBytes: number,
): { value: Record<string, unknown>; json: string; truncated: boolean } {
  let json = JSON.stringify(value);
  if (Buffer.byteLength(json) <= maxBytes) return { value, json, truncated: false };
  const current = structuredClone(value);
  for (let round = 0; round < 64; round++) {
    const size = Buffer.byteLength(json);
    if (size <= maxBytes) break;
    const target = largest(current);
    if (!target) break;
    const excess = size - maxBytes + 64;
    if (typeof target.value === 'string') {
      const keep = Math.max(0, target.value.length - Math.max(excess, Math.ceil(target.value.length / 2)));
      const head = target.value.slice(0, Math.ceil(keep / 2));
      const tail = target.value.slice(target.value.length - Math.floor(keep / 2));
      const cut = target.value.length - head.length - tail.length;
      target.set(`${head}\n[... ${cut} characters cut to fit the output limit ...]\n${tail}`);
    } else {
      const arr = target.value as unknown[];
      target.set(arr.slice(0, Math.floor(arr.length / 2)));
    }
    json = JSON.stringify(current);
  }
  (current as Record<string, unknown>).output_truncated = true;
  json = JSON.stringify(current);
  return { value: current, json, truncated: true };
}

interface Slot {
  value: string | unknown[];
  weight: number;
  set(next: unknown): void;
}

function largest(root: unknown): Slot | undefined {
  let best: Slot | undefined;
  const visit = (node: unknown, set: (next: unknown) => void): void => {
    if (typeof node === 'string') {
      if (node.length > 200 && (!best || node.length > best.weight))
        best = { value: node, weight: node.length, set };
    } else if (Array.isArray(node)) {
      const weight = JSON.stringify(node).length;
      if (node.length > 1 && (!best || weight > best.weight)) best = { value: node, weight, set };
      node.forEach((child, i) => {
        visit(child, (next) => {
          node[i] = next;
        });
      });
    } else if (node && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        visit(obj[key], (next) => {
          obj[key] = next;
        });
      }
    }
  };
  visit(root, () => {});
  return best;
}
