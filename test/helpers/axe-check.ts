import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** One rule axe found broken: its id, impact and the first elements that break it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

type AxeResult = {
  violations: {
    id: string;
    impact?: string | null;
    help: string;
    nodes: { target: unknown[] }[];
  }[];
};

/**
 * Runs axe-core (the devDependency) on the page as it is and returns its violations. The
 * page's CSP (`script-src 'self'`) refuses an inline script, so `addScriptTag({ content })`
 * cannot load it; Playwright's `evaluate` runs the source through the DevTools protocol,
 * which the CSP does not govern, and the inspector needs no option that loosens it.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const source = await readFile(
    createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
    'utf8',
  );
  await page.evaluate(source);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(c: unknown, o: unknown): Promise<AxeResult> } }
    ).axe;
    const doc = (globalThis as unknown as { document: unknown }).document;
    return axe.run(doc, { resultTypes: ['violations'] });
  });
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact ?? null,
    help: v.help,
    targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(' ')),
  }));
}

/** The serious and critical ones (what the browser tests refuse). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
}
