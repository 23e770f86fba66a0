import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { runDetail, sessionDetail } from '../../../src/inspect/inspector-reads.js';
import type { listSessions } from '../../../src/inspect/session-listing.js';
import type { machineCharts } from '../../../src/inspect/machine-charts.js';
import type { listWorkflows, workflowDetail } from '../../../src/inspect/workflow-reads.js';
import type {
  MachineCharts,
  RunDetail,
  SessionDetail,
  SessionPage,
} from '../../../src/inspect/page/browser/api-types.js';
import type {
  WorkflowDetail,
  WorkflowPage,
} from '../../../src/inspect/page/browser/workflow-api-types.js';
import { PAGE_SCRIPT } from '../../../generated/inspector-page-script.js';
import {
  PAGE_ENTRY,
  PAGE_SCRIPT_COMMAND,
  PAGE_SCRIPT_MODULE,
  PAGE_SCRIPT_TYPES,
  bundlePageScript,
  pageScriptModule,
  pageScriptTypes,
} from '../../../scripts/page-script-build.js';

/**
 * The page's types of the API (`api-types.ts`) are what the server's reads return: a field the
 * server drops or retypes fails `npm run typecheck` here (`Server` must extend `Page`).
 */
type Reads<Server extends Page, Page> = [Server, Page];
export type PageReadsTheApi = [
  Reads<ReturnType<typeof machineCharts>, MachineCharts>,
  Reads<Awaited<ReturnType<typeof listSessions>>, SessionPage>,
  Reads<Awaited<ReturnType<typeof sessionDetail>>, SessionDetail>,
  Reads<Awaited<ReturnType<typeof runDetail>>, RunDetail>,
  Reads<Awaited<ReturnType<typeof listWorkflows>>, WorkflowPage>,
  Reads<Awaited<ReturnType<typeof workflowDetail>>, WorkflowDetail>,
];

/** `src/inspect/page/browser/`: the entry sits in its `app/` folder. */
const BROWSER = join(PAGE_ENTRY, '..', '..');
const browserFiles = (readdirSync(BROWSER, { recursive: true }) as string[]).filter((f) =>
  f.endsWith('.ts'),
);

/** Every module specifier a file imports or re-exports, type-only ones included. */
function specifiers(text: string): string[] {
  return [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
}

describe("the inspector page's script (TypeScript in src/inspect/page/browser/)", () => {
  it(`is what the committed generated/inspector-page-script.js serves (else: ${PAGE_SCRIPT_COMMAND})`, async () => {
    // The whole generated module, header and formatting included, byte for byte.
    expect(readFileSync(PAGE_SCRIPT_MODULE, 'utf8')).toBe(await pageScriptModule());
    expect(readFileSync(PAGE_SCRIPT_TYPES, 'utf8')).toBe(await pageScriptTypes());
    expect(PAGE_SCRIPT).toBe(await bundlePageScript());
  });

  it('is generated outside src/ (generated/), and no file under src/ holds the bundle', () => {
    const src = join(BROWSER, '..', '..', '..');
    expect(PAGE_SCRIPT_MODULE.startsWith(src + sep)).toBe(false);
    expect(PAGE_SCRIPT_MODULE.endsWith(join('generated', 'inspector-page-script.js'))).toBe(true);
    const holders = (readdirSync(src, { recursive: true }) as string[]).filter(
      (f) =>
        f.endsWith('.ts') &&
        readFileSync(join(src, f), 'utf8').includes('export const PAGE_SCRIPT'),
    );
    expect(holders).toEqual([]);
  });

  it('is one strict IIFE that reaches the API with relative paths only (no URL but the SVG namespace)', () => {
    expect(PAGE_SCRIPT.startsWith('"use strict";\n(() => {\n')).toBe(true);
    expect(PAGE_SCRIPT.endsWith('\n})();\n')).toBe(true);
    expect(PAGE_SCRIPT).toContain('// src/inspect/page/browser/app/main.ts');
    expect(PAGE_SCRIPT).not.toMatch(
      /\bimport\b\s*[({'"]|\brequire\s*\(|https?:\/\/(?!www\.w3\.org\/2000\/svg")/,
    );
  });

  it('imports nothing but its own modules and the layout library, bundled in (no Node module, no other package, nothing of the server)', () => {
    expect(browserFiles).toContain(join('app', 'main.ts'));
    const outside = browserFiles.flatMap((file) =>
      specifiers(readFileSync(join(BROWSER, file), 'utf8'))
        .filter((s) => {
          // dagre lays out an app's chart in the page (charts/graph-layout.ts), nowhere else.
          if (s === '@dagrejs/dagre' && file === join('charts', 'graph-layout.ts')) return false;
          // A relative path to a module of the page's own folders, nothing else.
          if (!/^\.\.?\/[\w/.-]+\.js$/.test(s)) return true;
          const target = resolve(BROWSER, dirname(file), s);
          return !target.startsWith(BROWSER + sep) || !existsSync(target.replace(/\.js$/, '.ts'));
        })
        .map((s) => `${file} -> ${s}`),
    );
    expect(outside).toEqual([]);
  });

  it('is reached by the server through the generated module only', () => {
    const src = join(BROWSER, '..', '..', '..');
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
      );
    const importers = walk(src)
      .filter((f) => f.endsWith('.ts') && !f.startsWith(BROWSER))
      .filter((f) => specifiers(readFileSync(f, 'utf8')).some((s) => s.includes('/browser/')));
    expect(importers).toEqual([]);
  });
});
