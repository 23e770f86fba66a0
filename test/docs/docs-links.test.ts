import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeBlocks, docFiles, readDoc } from '../helpers/markdown-blocks.js';

/**
 * The docs read in order and link to each other: every relative link of README.md,
 * CONTRIBUTING.md, bench/README.md and docs/ names a file that exists (and a heading of it,
 * with `#anchor`), and docs/README.md lists every page of docs/ (issue 27).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const files = docFiles(ROOT);

/** A Markdown text outside its code blocks. */
function prose(file: string, text = readDoc(ROOT, file)): string {
  for (const block of codeBlocks(file, text)) text = text.replace(block.code, '');
  return text;
}

/** GitHub's anchors of a file's headings. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(file).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** The relative links of a file: `[text](target)`, outside code. */
function links(file: string, text?: string): { target: string; anchor: string | undefined }[] {
  return [...prose(file, text).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/i.test(t))
    .map((t) => {
      const [path, anchor] = t.split('#');
      return {
        target: path === '' ? file : normalize(join(dirname(file), path!)),
        anchor,
      };
    });
}

/** The broken relative links of a Markdown file (its text, when given, instead of the file's). */
function brokenLinks(file: string, text?: string): string[] {
  const broken: string[] = [];
  for (const { target, anchor } of links(file, text)) {
    if (!existsSync(join(ROOT, target))) broken.push(`${file}: ${target} does not exist`);
    else if (anchor !== undefined && target.endsWith('.md') && !anchors(target).has(anchor))
      broken.push(`${file}: ${target} has no heading #${anchor}`);
  }
  return broken;
}

describe('the links of the docs', () => {
  it('every relative link names a file that exists, and a heading of it', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap((file) => brokenLinks(file))).toEqual([]);
  });

  it('docs/README.md lists every page of docs/, and the README links to it', () => {
    const listed = new Set(links('docs/README.md').map((l) => l.target));
    const pages = files.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md');
    expect(pages.filter((p) => !listed.has(p))).toEqual([]);
    expect(links('README.md').map((l) => l.target)).toContain('docs/README.md');
  });

  it('the link check catches a broken link and a missing anchor, not a sound one', () => {
    const fixture = [
      'See [the index](README.md), [sessions](guides/sessions.md#no-such-heading),',
      '[a lost page](guides/no-such-page.md), [the site](https://example.com/x.md) and',
      '[the install](guides/getting-started.md#install).',
      '```md',
      '[inside code](not-checked.md)',
      '```',
    ].join('\n');
    expect(brokenLinks('docs/fixture.md', fixture)).toEqual([
      'docs/fixture.md: docs/guides/sessions.md has no heading #no-such-heading',
      'docs/fixture.md: docs/guides/no-such-page.md does not exist',
    ]);
  });
});
