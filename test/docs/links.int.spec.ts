import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The documentation stands on its own: every Markdown file of the repository links only to files inside it
// (and to headings that exist), and never sends the reader to the specification the project was built
// from, which a clone does not have.

const root = fileURLToPath(new URL('../..', import.meta.url));
const listed = spawnSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' });
const markdownFiles = listed.stdout.split('\n').filter((path) => path !== '' && existsSync(join(root, path)));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');

const anchorsOf = (markdown: string) => {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    let anchor = slug(heading[1]!);
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug(heading[1]!)}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
};

/** The relative targets of Markdown links and images, outside code: `[text](target)`. */
const linksOf = (markdown: string) => {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
};

/** Ways of pointing at the specification outside the repository. */
const outside = [
  /\.\.\/shared\//,
  /service-spec/,
  /decisions\.md/,
  /\bshared spec\b/i,
  /\bspec(?:ification)? section \d/i,
];

describe('the documentation stands on its own', () => {
  it('finds the Markdown files', () => {
    expect(listed.status).toBe(0);
    expect(markdownFiles).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/orders.md']));
  });

  it('links only to files inside the repository, and to headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdownFiles) {
      for (const target of linksOf(readFileSync(join(root, file), 'utf8'))) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(root, file) : resolve(root, dirname(file), decodeURI(path));
        if (relative(root, resolved).startsWith('..'))
          broken.push(`${file}: ${target} (outside the repository)`);
        else if (!existsSync(resolved)) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('never points at the specification the project was built from', () => {
    const found = markdownFiles.flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          outside.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
