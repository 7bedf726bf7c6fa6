const UTF8_BOM = [0xef, 0xbb, 0xbf];

export type TextCheck =
  | { kind: 'text'; text: string; bom: boolean }
  | { kind: 'binary' }
  | { kind: 'unsupported_encoding'; encoding: string };

/**
 * Classifies bytes as UTF-8 text (BOM noted and stripped), binary, or text in an encoding the
 * tools do not handle. Strict decoding: a lossy decode followed by a write would corrupt the file.
 */
export function checkText(bytes: Uint8Array): TextCheck {
  if (bytes.length >= 2) {
    const [b0, b1] = bytes;
    if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff)) {
      return { kind: 'unsupported_encoding', encoding: 'UTF-16' };
    }
  }
  const bom = hasUtf8Bom(bytes);
  const body = bom ? bytes.subarray(3) : bytes;
  // A NUL in the first 8 KiB is the same heuristic git and ripgrep use for "binary".
  const probe = body.subarray(0, 8192);
  if (probe.includes(0)) return { kind: 'binary' };
  try {
    return {
      kind: 'text',
      text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body),
      bom,
    };
  } catch {
    return looksLikeText(probe)
      ? { kind: 'unsupported_encoding', encoding: 'non-UTF-8' }
      : { kind: 'binary' };
  }
}

export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 3 && bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2]
  );
}

export function encodeText(text: string, bom: boolean): Buffer {
  const body = Buffer.from(text, 'utf8');
  return bom ? Buffer.concat([Buffer.from(UTF8_BOM), body]) : body;
}

function looksLikeText(probe: Uint8Array): boolean {
  let control = 0;
  for (const b of probe) if (b < 0x09 || (b > 0x0d && b < 0x20)) control++;
  return control <= probe.length / 100;
}
