import { createRequire } from 'node:module';

/**
 * This package's version, from its package.json: one folder up from the bundled `dist/`
 * files, two from the sources in `src/<folder>/`.
 */
export function packageVersion(): string {
  const require = createRequire(import.meta.url);
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = require(path) as { name?: string; version: string };
      if (pkg.name === 'agentstate-runtime') return pkg.version;
    } catch {
      // not at this depth: try the next
    }
  }
  throw new Error("agentstate-runtime's package.json was not found");
}
