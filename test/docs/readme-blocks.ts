// The shell blocks of README.md, as the README test runs them (test/docs/readme.e2e.spec.ts).

/** How the README test treats a block, from the HTML comments just above its fence. */
export type BlockMode = 'run' | 'not-run' | 'background';

export type ShellBlock = {
  /** 1-based line of the opening fence in README.md. */
  line: number;
  code: string;
  mode: BlockMode;
  /** Why a block is not run, or what a background block is. */
  reason: string | null;
  /** Texts the session's output must hold once this block has run (`<!-- expect: TEXT -->`). */
  expect: string[];
};

const fence = /^```(sh|bash|shell)\s*$/;
const comment = /^<!--\s*(not-run|background|expect):\s*(.*?)\s*-->$/;

/**
 * Every ```sh, ```bash and ```shell block of a Markdown text, in order, with what the comments right above
 * it say: `<!-- not-run: reason -->` (skipped, with the reason), `<!-- background: what -->` (started in
 * the background and left running until the end, such as the service), `<!-- expect: TEXT -->` (the output
 * so far must contain TEXT after the block; repeatable). Blank lines may separate comments and fence.
 */
export const shellBlocks = (markdown: string): ShellBlock[] => {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = lines[index]!;
    if (!fence.test(opening)) {
      // Any other fence: skip its content, so that a ```sh shown inside a ```md block is not taken.
      if (opening.startsWith('```')) {
        index++;
        while (index < lines.length && !lines[index]!.startsWith('```')) index++;
      }
      continue;
    }
    const annotations: { kind: string; text: string }[] = [];
    for (let above = index - 1; above >= 0; above--) {
      const text = lines[above]!.trim();
      if (text === '') continue;
      const match = comment.exec(text);
      if (!match) break;
      annotations.unshift({ kind: match[1]!, text: match[2]! });
    }
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && lines[end] !== '```') body.push(lines[end++]!);
    if (end === lines.length) throw new Error(`README.md:${index + 1}: the block never ends`);
    const modes = annotations.filter((a) => a.kind !== 'expect');
    if (modes.length > 1)
      throw new Error(`README.md:${index + 1}: both ${modes.map((m) => m.kind).join(' and ')}`);
    blocks.push({
      line: index + 1,
      code: body.join('\n'),
      mode: (modes[0]?.kind as BlockMode | undefined) ?? 'run',
      reason: modes[0]?.text ?? null,
      expect: annotations.filter((a) => a.kind === 'expect').map((a) => a.text),
    });
    index = end;
  }
  return blocks;
};

/**
 * What the README promises its commands never print: problem details and status lines of a 4xx or 5xx,
 * errors of the shell, npm, jq and Node, and a webhook whose signature the receiver could not verify.
 */
export const forbiddenOutput: { pattern: RegExp; what: string }[] = [
  { pattern: /"status":\s*[45]\d\d/, what: 'a 4xx or 5xx problem' },
  { pattern: /^HTTP\/[\d.]+ [45]\d\d/m, what: 'a 4xx or 5xx status line' },
  { pattern: /Internal Server Error/, what: 'Internal Server Error' },
  { pattern: /\b(?:[A-Z]\w*)?Error: /, what: 'an error (Error:, TypeError: ...)' },
  { pattern: /^npm (?:error|ERR!)/m, what: 'an npm error' },
  { pattern: /^jq: error/m, what: 'a jq error' },
  { pattern: /command not found|No such file or directory/, what: 'a shell error' },
  { pattern: /signature not verified/, what: 'a webhook the receiver could not verify' },
];
