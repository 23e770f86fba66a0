import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, type-only ones included. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

/** The `src/` folder (first path segment) a relative specifier of `file` points into. */
function targetLayer(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(src, resolve(dirname(file), specifier));
  return target.split(sep)[0];
}

const rel = (file: string) => relative(root, file).split(sep).join('/');
const files = sourceFiles(src);
const isPackage = (specifier: string, name: string) =>
  specifier === name || specifier.startsWith(`${name}/`);

describe('layering', () => {
  it('finds the source files it checks', () => {
    expect(files.some((f) => rel(f) === 'src/machines/run-machine.ts')).toBe(true);
    expect(files.some((f) => rel(f) === 'src/persistence/level-backend.ts')).toBe(true);
    expect(specifiers(join(src, 'machines', 'run-machine.ts'))).toContain('xstate');
  });

  it('src/machines imports nothing from models, persistence, runtime, actors or openai', () => {
    const offending = files
      .filter((f) => rel(f).startsWith('src/machines/'))
      .flatMap((f) =>
        specifiers(f)
          .filter(
            (s) =>
              ['models', 'persistence', 'runtime', 'actors', 'tools'].includes(
                targetLayer(f, s) ?? '',
              ) ||
              isPackage(s, 'openai') ||
              isPackage(s, 'level'),
          )
          .map((s) => `${rel(f)} -> ${s}`),
      );
    expect(offending).toEqual([]);
  });

  it('imports `level` only under src/persistence', () => {
    const users = files.filter((f) => specifiers(f).some((s) => isPackage(s, 'level'))).map(rel);
    expect(users.length).toBeGreaterThan(0);
    expect(users.filter((f) => !f.startsWith('src/persistence/'))).toEqual([]);
  });

  it('imports `pg` only under src/persistence/postgres, which nothing else imports but its entry', () => {
    const users = files.filter((f) => specifiers(f).some((s) => isPackage(s, 'pg'))).map(rel);
    expect(users).toContain('src/persistence/postgres/postgres-database.ts');
    expect(users.filter((f) => !f.startsWith('src/persistence/postgres/'))).toEqual([]);
    const importers = files
      .filter((f) => !rel(f).startsWith('src/persistence/postgres/'))
      .filter((f) => specifiers(f).some((s) => s.includes('/postgres/')))
      .map(rel);
    expect(importers).toEqual(['src/postgres.ts']);
  });

  it('imports `openai` only under src/models', () => {
    const users = files.filter((f) => specifiers(f).some((s) => isPackage(s, 'openai'))).map(rel);
    expect(users).toContain('src/models/openai-model.ts');
    expect(users.filter((f) => !f.startsWith('src/models/'))).toEqual([]);
  });

  it('imports `@opentelemetry/api` only under src/telemetry', () => {
    const users = files
      .filter((f) => specifiers(f).some((s) => isPackage(s, '@opentelemetry/api')))
      .map(rel);
    expect(users).toContain('src/telemetry/session-observer.ts');
    expect(users.filter((f) => !f.startsWith('src/telemetry/'))).toEqual([]);
  });

  it('imports `@modelcontextprotocol/sdk` only under src/mcp, which the root entry never reaches', () => {
    const users = files
      .filter((f) => specifiers(f).some((s) => isPackage(s, '@modelcontextprotocol/sdk')))
      .map(rel);
    expect(users).toContain('src/mcp/mcp-connection.ts');
    expect(users.filter((f) => !f.startsWith('src/mcp/'))).toEqual([]);
    const importers = files
      .filter((f) => !rel(f).startsWith('src/mcp/') && rel(f) !== 'src/mcp.ts')
      .filter((f) => specifiers(f).some((s) => ['mcp', 'mcp.js'].includes(targetLayer(f, s) ?? '')))
      .map(rel);
    expect(importers).toEqual([]);
  });
});
