import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCS_GLOBALS } from '../helpers/docs-globals.js';
import { docFiles, readDoc, typeScriptBlocks, type CodeBlock } from '../helpers/markdown-blocks.js';
import { typeCheckSnippets } from '../helpers/typecheck-blocks.js';

/**
 * Every TypeScript block of README.md, CONTRIBUTING.md, bench/README.md and docs/ is
 * type-checked against src/ with the project's strict options, so the docs cannot rot
 * (issue 27). A block marked ```` ```ts fragment: <why> ```` is a deliberate piece of a
 * larger program and is skipped; there are few, and each says why in its fence.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Two blocks that must fail: a plain type error and a misused agentstate option. */
const BROKEN: CodeBlock[] = [
  { file: 'fixture', line: 1, info: ['ts'], code: `const turns: number = 'three';` },
  {
    file: 'fixture',
    line: 2,
    info: ['ts'],
    code: `import { Agent } from 'agentstate-runtime';\nnew Agent({ name: 'a', model, maxTurn: 3 });`,
  },
];
/** A block that must pass: agentstate, a subpath and a global of the docs. */
const SOUND: CodeBlock = {
  file: 'fixture',
  line: 3,
  info: ['ts'],
  code: `import { Agent } from 'agentstate-runtime';\nimport { ScriptedModel } from 'agentstate-runtime/testing';\nconst a = new Agent({ name: 'a', model: new ScriptedModel([{ text: 'hi' }]), store });\nconst r = await a.run('hello');\nconst out: string | undefined = r.output as string | undefined;\nvoid out;`,
};

const blocks = docFiles(ROOT).flatMap((file) => typeScriptBlocks(file, readDoc(ROOT, file)));
/** ```` ```ts fragment: <why> ````: a piece of a larger program, not checked. */
const isFragment = (b: CodeBlock) => b.info[1]?.startsWith('fragment') === true;
const checked = blocks.filter((b) => !isFragment(b));
const name = (b: CodeBlock) => `${b.file}:${b.line}`;
const results = typeCheckSnippets(
  ROOT,
  [...checked, ...BROKEN, SOUND].map((b) => ({ name: name(b), code: b.code })),
  DOCS_GLOBALS,
);

describe('the TypeScript blocks of the docs', () => {
  it('finds the blocks of README.md, docs/ and bench/README.md', () => {
    expect(checked.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(4);
    expect(checked.filter((b) => b.file.startsWith('docs/')).length).toBeGreaterThanOrEqual(20);
  });

  it('every block type-checks against src/ with the strict options', () => {
    const failures = checked.flatMap((b) =>
      (results.get(name(b)) ?? []).map((message) => `${name(b)} (block) ${message}`),
    );
    expect(failures).toEqual([]);
  });

  it('fragments stay rare, and each says why it cannot stand alone', () => {
    const fragments = blocks.filter(isFragment);
    expect(fragments.length).toBeLessThanOrEqual(3);
    // ```ts fragment: <why>, e.g. "```ts fragment: the options only, inside a larger call"
    const unexplained = fragments.filter((b) => b.info.length < 3).map(name);
    expect(unexplained).toEqual([]);
    expect(isFragment({ ...SOUND, info: ['ts', 'fragment:', 'options', 'only'] })).toBe(true);
    expect(isFragment(SOUND)).toBe(false);
  });

  it('the check fails on a block with a type error and passes a sound one', () => {
    const [typeError, badOption] = BROKEN.map((b) => results.get(name(b)) ?? []);
    expect(typeError!.join('\n')).toMatch(/not assignable to type 'number'/);
    expect(badOption!.join('\n')).toMatch(/maxTurn/);
    expect(results.get(name(SOUND))).toEqual([]);
  });
});
