import { createRequire } from 'node:module';

/** This package's version, from its package.json (two folders up from src/ and dist/ files). */
export function packageVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('../../package.json') as { version: string }).version;
}
