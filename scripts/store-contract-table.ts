import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { STORE_CAPABILITIES, STORE_CONTRACT } from '../src/persistence/store-supports.js';

/** The contract's page, whose table of what is required and optional this script draws. */
export const STORE_CONTRACT_PAGE = fileURLToPath(
  new URL('../src/persistence/STORE-CONTRACT.md', import.meta.url),
);

const code = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

/** The table of `STORE_CONTRACT`: the required methods, then each optional capability. */
export function capabilityTable(): string {
  const rows = [
    '| part | `supports` | methods | needs | what for |',
    '| --- | --- | --- | --- | --- |',
    `| required | (every store) | ${code(STORE_CONTRACT.required)} | | the core: versions, history, journal, listing, totals, purge, audit |`,
    ...STORE_CAPABILITIES.map((capability) => {
      const { methods, needs, what } = STORE_CONTRACT.capabilities[capability];
      return `| optional | \`${capability}\` | ${code(methods)} | ${code(needs)} | ${what} |`;
    }),
  ];
  return rows.join('\n');
}

/** `page` with its table between the `capabilities` markers drawn anew. */
export function withCapabilityTable(page: string): string {
  const marked = /(<!-- capabilities:start -->\n)[\s\S]*?(<!-- capabilities:end -->)/;
  if (!marked.test(page)) throw new Error('STORE-CONTRACT.md: no capabilities markers');
  return page.replace(marked, (_all, open: string, close: string) => {
    return `${open}\n${capabilityTable()}\n\n${close}`;
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(
    STORE_CONTRACT_PAGE,
    withCapabilityTable(readFileSync(STORE_CONTRACT_PAGE, 'utf8')),
  );
  console.log(`wrote the capability table of ${STORE_CONTRACT_PAGE}`);
}
