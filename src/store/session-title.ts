/**
 * The title a session gets at once from its first prompt: the first meaningful line, without
 * Markdown noise, cut at a word boundary. The host may later replace it with a model's title.
 */
const MAX_TITLE = 60;

export function titleFromPrompt(prompt: string | undefined): string {
  const line =
    (prompt ?? '')
      .replace(/```[\s\S]*?(```|$)/g, ' ')
      .split('\n')
      .map((l) => l.replace(/^[#>*\-\s]+/, '').trim())
      .find((l) => l.length > 0) ?? '';
  const flat = line.replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim();
  if (!flat) return 'New session';
  if (flat.length <= MAX_TITLE) return flat;
  const cut = flat.slice(0, MAX_TITLE);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_TITLE / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}
