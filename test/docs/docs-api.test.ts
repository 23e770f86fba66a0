import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AI_SDK_TYPES,
  AI_SDK_VALUES,
  EVALS_TYPES,
  EVALS_VALUES,
  INSPECT_TYPES,
  HTTP_VALUES,
  HTTP_TYPES,
  A2A_VALUES,
  A2A_TYPES,
  INSPECT_VALUES,
  MCP_TYPES,
  STORE_TYPES,
  STORE_VALUES,
  MCP_VALUES,
  POSTGRES_TYPES,
  POSTGRES_VALUES,
  ROOT_TYPES,
  ROOT_VALUES,
  TESTING_TYPES,
  TESTING_VALUES,
} from '../helpers/public-api.js';

/**
 * docs/reference/api.md names every export that test/package/public-api.test.ts pins, each under its
 * entry point's heading, so a name added to or dropped from the public surface is documented
 * (issue 27).
 */
const page = readFileSync(new URL('../../docs/reference/api.md', import.meta.url), 'utf8');

/** The text under the heading `` ## `<entry>` `` up to the next `## `. */
function section(entry: string): string {
  const start = page.indexOf(`## \`${entry}\``);
  if (start < 0) return '';
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end < 0 ? undefined : end);
}

/** The pinned names a section does not mention as `` `Name` `` (or `Name.` for a method). */
const missing = (text: string, names: readonly string[]) =>
  names.filter((n) => !new RegExp(`\`${n}[\`.(]`).test(text));

const ENTRIES: [string, readonly string[]][] = [
  ['agentstate-runtime', [...ROOT_VALUES, ...ROOT_TYPES]],
  ['agentstate-runtime/testing', [...TESTING_VALUES, ...TESTING_TYPES]],
  ['agentstate-runtime/ai-sdk', [...AI_SDK_VALUES, ...AI_SDK_TYPES]],
  ['agentstate-runtime/postgres', [...POSTGRES_VALUES, ...POSTGRES_TYPES]],
  ['agentstate-runtime/inspect', [...INSPECT_VALUES, ...INSPECT_TYPES]],
  ['agentstate-runtime/http', [...HTTP_VALUES, ...HTTP_TYPES]],
  ['agentstate-runtime/a2a', [...A2A_VALUES, ...A2A_TYPES]],
  ['agentstate-runtime/mcp', [...MCP_VALUES, ...MCP_TYPES]],
  ['agentstate-runtime/store', [...STORE_VALUES, ...STORE_TYPES]],
  ['agentstate-runtime/evals', [...EVALS_VALUES, ...EVALS_TYPES]],
];

describe('docs/reference/api.md', () => {
  it.each(ENTRIES)('names every pinned export of %s under its heading', (entry, names) => {
    const text = section(entry);
    expect(text.length).toBeGreaterThan(0);
    expect(missing(text, names)).toEqual([]);
  });

  it('the check catches a name the page leaves out', () => {
    expect(missing(section('agentstate-runtime'), ['Agent', 'NotAnExportOfAgentstate'])).toEqual([
      'NotAnExportOfAgentstate',
    ]);
  });
});
