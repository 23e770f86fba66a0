import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/** npm's own range logic (installed with the lint tools); typed here for the two calls used. */
const semver = createRequire(import.meta.url)('semver') as {
  validRange(range: string): string | null;
  subset(sub: string, dom: string): boolean;
};

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

/**
 * Issue 39: the Node a contributor needs is written in CONTRIBUTING.md, and every package
 * `npm install` puts in (the development tools included) accepts each version of that range,
 * so an install on it prints no engine warning. The package's own `engines` may be wider.
 */
describe('the Node version a contributor needs', () => {
  const documented = /declare Node `([^`]+)`/.exec(read('CONTRIBUTING.md'))?.[1];

  it('is written in CONTRIBUTING.md as a semver range', () => {
    expect(documented).toBeDefined();
    expect(semver.validRange(documented!)).not.toBeNull();
  });

  it("fits every locked package's engines.node (no EBADENGINE on an install there)", () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { engines?: { node?: string } }>;
    };
    const misfits = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.engines?.node !== undefined)
      .filter(([, p]) => !semver.subset(documented!, p.engines!.node!))
      .map(([path, p]) => `${path} wants node ${p.engines!.node}`);
    expect(misfits).toEqual([]);
  });

  it("is within the package's own engines range", () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(semver.subset(documented!, pkg.engines.node)).toBe(true);
  });
});
