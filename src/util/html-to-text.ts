const DROP =
  /<(script|style|noscript|svg|template|iframe|head|nav|footer|aside|form|button)\b[\s\S]*?<\/\1\s*>/gi;

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  copy: '©',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

/**
 * Readable text of a web page, Markdown-flavoured: page chrome (scripts, navigation, footers,
 * forms) dropped, the <main> or <article> element preferred when there is one, headings, list
 * items, code blocks and links kept recognisable. A regex pass, not a DOM: pages only need to
 * become something a model can read, and a parser dependency is not worth it for that.
 */
export function htmlToText(html: string): { title?: string; text: string } {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  let body = html.replace(/<!--[\s\S]*?-->/g, '');
  const main = /<(main|article)\b[^>]*>([\s\S]*?)<\/\1>/i.exec(body);
  if (main?.[2] && main[2].length > 200) body = main[2];
  body = body
    .replace(DROP, '')
    .replace(
      /<pre\b[^>]*>([\s\S]*?)<\/pre>/gi,
      (_m, code: string) => `\n\`\`\`\n${stripTags(code)}\n\`\`\`\n`,
    )
    .replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/gi, (_m, level: string, text: string) => {
      return `\n\n${'#'.repeat(Number(level))} ${stripTags(text).trim()}\n\n`;
    })
    .replace(/<a\b[^>]*href="(https?:[^"]+)"[^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, text: string) => {
      const label = stripTags(text).trim();
      return label ? `[${label}](${href})` : '';
    })
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<code\b[^>]*>([\s\S]*?)<\/code>/gi, (_m, code: string) => `\`${stripTags(code)}\``)
    .replace(/<(br|hr)\b[^>]*>/gi, '\n')
    .replace(/<\/(p|div|section|ul|ol|table|tr|blockquote|dl|dd|dt)>/gi, '\n\n')
    .replace(/<\/(td|th)>/gi, ' | ');
  const text = decodeEntities(stripTags(body))
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: title ? decodeEntities(stripTags(title)).trim() : undefined, text };
}

function stripTags(html: string): string {
  return html.replace(/<[^>]+>/g, '');
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === '#') {
      const n =
        code[1] === 'x' || code[1] === 'X' ? Number.parseInt(code.slice(2), 16) : Number(code.slice(1));
      return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : whole;
    }
    return ENTITIES[code.toLowerCase()] ?? whole;
  });
}
