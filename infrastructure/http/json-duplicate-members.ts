type Frame = { kind: 'object'; keys: Set<string>; key?: string } | { kind: 'array'; index: number };

/** The index of the quote that closes the JSON string opening at `start`. */
const endOfString = (text: string, start: number): number => {
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === '\\') at++;
    else if (text[at] === '"') return at;
  }
  return text.length;
};

/** Where a member is, as the API's field errors name it: `items[0].quantity`. */
const pathOf = (frames: readonly Frame[], key: string): string => {
  const keys = [...frames.slice(0, -1), { kind: 'object' as const, key }];
  return keys
    .map((frame, depth) =>
      frame.kind === 'array' ? `[${frame.index}]` : `${depth === 0 ? '' : '.'}${frame.key!}`,
    )
    .join('');
};

/**
 * The path of the first member an object of this JSON text names twice (`{"a":1,"a":2}`, escapes decoded
 * first, so `"\u0061"` is `a` too), or null. JSON.parse keeps the last silently; a proxy that keeps the
 * first would read another request than the one acted on (RFC 8259 leaves the meaning open). For text that
 * JSON.parse accepted: one pass, no recursion.
 */
export const duplicateMemberIn = (text: string): string | null => {
  const frames: Frame[] = [];
  let expectingKey = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    const top = frames.at(-1);
    if (char === '"') {
      const end = endOfString(text, at);
      if (expectingKey && top?.kind === 'object') {
        const key = JSON.parse(text.slice(at, end + 1)) as string;
        if (top.keys.has(key)) return pathOf(frames, key);
        top.keys.add(key);
        top.key = key;
        expectingKey = false;
      }
      at = end;
    } else if (char === '{') {
      frames.push({ kind: 'object', keys: new Set() });
      expectingKey = true;
    } else if (char === '[') {
      frames.push({ kind: 'array', index: 0 });
      expectingKey = false;
    } else if (char === '}' || char === ']') {
      frames.pop();
      expectingKey = false;
    } else if (char === ',' && top !== undefined) {
      if (top.kind === 'object') expectingKey = true;
      else top.index++;
    }
  }
  return null;
};
