import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STORE_CAPABILITIES, STORE_CONTRACT } from '../../src/persistence/store-supports.js';
import {
  STORE_CONTRACT_PAGE,
  capabilityTable,
  withCapabilityTable,
} from '../../scripts/store-contract-table.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE_FOLDER = join(ROOT, 'src', 'persistence');

/** Calls the page names that are not store methods: the runtime's and the suite's. */
const OTHER_CALLS = new Set(['recover', 'storeContract']);

const page = () => readFileSync(STORE_CONTRACT_PAGE, 'utf8');
const TABLE = /<!-- capabilities:start -->([\s\S]*?)<!-- capabilities:end -->/;
/** A Markdown table as its cells, whatever the padding Prettier gives it. */
const cells = (table: string) =>
  table
    .trim()
    .split('\n')
    .map((row) => row.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/^-+$/, '-')));
/** The page without its generated table: what is written by hand. */
const prose = (text: string) => text.replace(TABLE, '');
/** The page's code spans (a span may wrap onto the next line), code blocks left out. */
const codeSpans = (text: string) =>
  [...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`]+)`/g)].map((m) =>
    m[1]!.replace(/\s+/g, ' '),
  );

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return [relative(ROOT, path).split('\\').join('/')];
  });
}

/** The files a name in the page may mean: a path from the page, `src/` or the root, or a file name. */
function exists(name: string, known: readonly string[]): boolean {
  const path = name.split(' ').at(-1)!;
  if (!path.includes('/')) return known.some((file) => file.endsWith(`/${path}`));
  return [PAGE_FOLDER, join(ROOT, 'src'), ROOT].some((base) => existsSync(join(base, path)));
}

/** What is wrong with `text` as the contract's page, against the code. */
function mistakes(text: string): string[] {
  const found: string[] = [];
  const table = TABLE.exec(text)?.[1];
  if (table === undefined) {
    found.push('no capabilities table');
  } else if (JSON.stringify(cells(table)) !== JSON.stringify(cells(capabilityTable()))) {
    found.push(
      'the capabilities table is not STORE_CONTRACT (npx tsx scripts/store-contract-table.ts)',
    );
  }
  const known = [...filesUnder(join(ROOT, 'src')), ...filesUnder(join(ROOT, 'test'))];
  const spans = codeSpans(text);
  for (const span of spans.filter((s) => /\.(ts|md)$/.test(s))) {
    if (!exists(span, known)) found.push(`names a file that does not exist: ${span}`);
  }
  const required: readonly string[] = STORE_CONTRACT.required;
  const methods = new Set([
    ...required,
    ...STORE_CAPABILITIES.flatMap((c) => STORE_CONTRACT.capabilities[c].methods),
  ]);
  for (const span of spans) {
    const call = /^([a-z][A-Za-z]*)\(/.exec(span)?.[1];
    if (call && !methods.has(call) && !OTHER_CALLS.has(call)) {
      found.push(`names a method that does not exist: ${call}`);
    }
  }
  // Each method and capability is written about by hand, not only listed in the table.
  const written = new Set(codeSpans(prose(text)).map((s) => /^[A-Za-z]+/.exec(s)?.[0]));
  for (const method of methods) {
    if (!written.has(method)) found.push(`says nothing of the method ${method}`);
  }
  for (const capability of STORE_CAPABILITIES) {
    if (!written.has(capability)) found.push(`says nothing of the capability ${capability}`);
  }
  return found;
}

describe('STORE-CONTRACT.md', () => {
  it('is true to the code: its table, files, methods and capabilities', () => {
    expect(mistakes(page())).toEqual([]);
  });

  it('fails on a file, method or capability that does not exist, and on one it misses', () => {
    const text = page();
    expect(mistakes(text.replace('`session-leases.ts`', '`store-leases.ts`'))).toEqual([
      'names a file that does not exist: store-leases.ts',
    ]);
    expect(mistakes(`${text}\n- \`forgetSession(key)\` forgets.\n`)).toEqual([
      'names a method that does not exist: forgetSession',
    ]);
    expect(mistakes(text.replace('| `leaseReads`', '| `leaseRead`'))).toContain(
      'the capabilities table is not STORE_CONTRACT (npx tsx scripts/store-contract-table.ts)',
    );
    // The prose says nothing of watches; the table (drawn again) still lists them.
    const noWatches = withCapabilityTable(
      text.replaceAll('`watchSession', '`watch').replaceAll('`sessionWatches`', 'watches'),
    );
    expect(mistakes(noWatches)).toEqual(
      expect.arrayContaining([
        'says nothing of the method watchSession',
        'says nothing of the capability sessionWatches',
      ]),
    );
  });
});
