import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCS_GLOBALS } from './helpers/docs-globals.js';
import { docFiles, readDoc, typeScriptBlocks, type CodeBlock } from './helpers/markdown-blocks.js';
import { typeCheckSnippets } from './helpers/typecheck-blocks.js';

/**
 * Every TypeScript block of README.md, CONTRIBUTING.md, bench/README.md and docs/ is
 * type-checked against src/ with the project's strict options, so the docs cannot rot
 * (issue 27). A block marked ```` ```ts fragment ```` is a deliberate piece of a larger
 * program (it says why in the text around it) and is skipped; there are few.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Two blocks that must fail: a plain type error and a misused agentstate option. */
const BROKEN: CodeBlock[] = [
  { file: 'fixture', line: 1, info: ['ts'], code: `const turns: number = 'three';` },
  {
    file: 'fixture',
    line: 2,
    info: ['ts'],
    code: `import { Agent } from 'agentstate';\nnew Agent({ name: 'a', model, maxTurn: 3 });`,
  },
];
/** A block that must pass: agentstate, a subpath and a global of the docs. */
const SOUND: CodeBlock = {
  file: 'fixture',
  line: 3,
  info: ['ts'],
  code: `import { Agent } from 'agentstate';\nimport { ScriptedModel } from 'agentstate/testing';\nconst a = new Agent({ name: 'a', model: new ScriptedModel([{ text: 'hi' }]), store });\nconst r = await a.run('hello');\nconst out: string | undefined = r.output as string | undefined;\nvoid out;`,
};

const blocks = docFiles(ROOT).flatMap((file) => typeScriptBlocks(file, readDoc(ROOT, file)));
const checked = blocks.filter((b) => !b.info.includes('fragment'));
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

  it('fragments stay rare', () => {
    const fragments = blocks.filter((b) => b.info.includes('fragment')).map(name);
    expect(fragments.length).toBeLessThanOrEqual(3);
  });

  it('the check fails on a block with a type error and passes a sound one', () => {
    const [typeError, badOption] = BROKEN.map((b) => results.get(name(b)) ?? []);
    expect(typeError!.join('\n')).toMatch(/not assignable to type 'number'/);
    expect(badOption!.join('\n')).toMatch(/maxTurn/);
    expect(results.get(name(SOUND))).toEqual([]);
  });
});
