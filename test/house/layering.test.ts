import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { LAYERS, type Layer } from '../../scripts/layers.js';
import {
  layerFolders,
  layeringProblems,
  sourceFiles,
  specifiers,
} from '../helpers/layering-check.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'src');

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
    expect(files.some((f) => rel(f) === 'src/persistence/kv/backends/level-backend.ts')).toBe(true);
    expect(specifiers(join(src, 'machines', 'run-machine.ts'))).toContain('xstate');
  });

  it('every import points to a lower layer, type imports included, and no folders form a cycle', () => {
    expect(layeringProblems(src)).toEqual({
      unlisted: [],
      twice: [],
      upward: [],
      sideways: [],
      cycles: [],
    });
  });

  it('every layer it lists is a folder of src/', () => {
    const folders = new Set(
      sourceFiles(src).map((f) => relative(src, dirname(f)).split(sep).join('/') || '.'),
    );
    expect(layerFolders().filter((f) => !folders.has(f))).toEqual([]);
  });
  it('reaches outside src/ only for the generated page script (generated/, written by npm run build:page)', () => {
    const outside = files.flatMap((f) =>
      specifiers(f)
        .filter((s) => s.startsWith('.') && relative(src, resolve(dirname(f), s)).startsWith('..'))
        .map(
          (s) =>
            `${rel(f)} -> ${relative(root, resolve(dirname(f), s))
              .split(sep)
              .join('/')}`,
        ),
    );
    expect(outside).toEqual([
      'src/inspect/start-inspector.ts -> generated/inspector-page-script.js',
    ]);
  });

  it('src/machines is pure: it imports only errors, items and validation, and no I/O package', () => {
    const offending = files
      .filter((f) => rel(f).startsWith('src/machines/'))
      .flatMap((f) =>
        specifiers(f)
          .filter(
            (s) =>
              (s.startsWith('.') &&
                !['machines', 'errors', 'items', 'validation'].includes(targetLayer(f, s) ?? '')) ||
              isPackage(s, 'openai') ||
              isPackage(s, 'level') ||
              s.startsWith('node:'),
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

  it('imports `pg` only under src/persistence/postgres, which nothing else imports but its entry (and the command line, on demand)', () => {
    const users = files.filter((f) => specifiers(f).some((s) => isPackage(s, 'pg'))).map(rel);
    expect(users).toContain('src/persistence/postgres/postgres-database.ts');
    expect(users.filter((f) => !f.startsWith('src/persistence/postgres/'))).toEqual([]);
    const importers = files
      .filter((f) => !rel(f).startsWith('src/persistence/postgres/'))
      .filter((f) => specifiers(f).some((s) => s.includes('/postgres/')))
      .map(rel);
    expect(importers).toEqual(['src/cli/shared/cli-postgres.ts', 'src/postgres.ts']);
    // The command line loads the store (and `pg`) only for a command given one.
    const cliOpener = files.find((f) => rel(f) === 'src/cli/shared/cli-postgres.ts')!;
    expect(readFileSync(cliOpener, 'utf8')).toMatch(
      /=\s*await import\('\.\.\/\.\.\/persistence\/postgres\/postgres-session-store\.js'\)/,
    );
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

  it('imports `@a2a-js/sdk` only under src/a2a, which the root entry never reaches', () => {
    const users = files
      .filter((f) => specifiers(f).some((s) => isPackage(s, '@a2a-js/sdk')))
      .map(rel);
    expect(users).toContain('src/a2a/a2a-handler.ts');
    expect(users.filter((f) => !f.startsWith('src/a2a/'))).toEqual([]);
    const importers = files
      .filter((f) => !rel(f).startsWith('src/a2a/') && rel(f) !== 'src/a2a.ts')
      .filter((f) => specifiers(f).some((s) => ['a2a', 'a2a.js'].includes(targetLayer(f, s) ?? '')))
      .map(rel);
    expect(importers).toEqual([]);
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

describe('the layering check itself', () => {
  // Each case copies src/ to a temp folder and changes the copy: src/ itself is never touched.
  let copy: string | undefined;
  afterEach(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
    copy = undefined;
  });
  const copyOfSrc = (): string => {
    copy = mkdtempSync(join(tmpdir(), 'agentstate-layering-'));
    cpSync(src, copy, { recursive: true });
    return copy;
  };

  it('fails on an upward import (the pure machines importing the agent facade)', () => {
    const tree = copyOfSrc();
    appendFileSync(
      join(tree, 'machines', 'run-machine.ts'),
      "\nexport type { Agent as Upward } from '../agent/agent.js';\n",
    );
    const problems = layeringProblems(tree);
    expect(problems.upward).toEqual([
      'machines/run-machine.ts -> ../agent/agent.js (machines imports agent)',
    ]);
    // agent reaches machines through many folders: they all form one cycle now.
    expect(problems.cycles).toHaveLength(1);
    expect(problems.cycles[0]).toContain('machines -> agent');
  });

  it('fails on a sideways import and on a cycle between folders, type imports included', () => {
    const tree = copyOfSrc();
    appendFileSync(
      join(tree, 'tools', 'tool.ts'),
      "\nexport type { InputGuardrail as Sideways } from '../guardrails/guardrail.js';\n",
    );
    appendFileSync(
      join(tree, 'actions', 'session-action.ts'),
      "\nimport type { SessionRuntime as Back } from '../sessions/session-runtime.js';\nexport type Up = Back;\n",
    );
    const problems = layeringProblems(tree);
    // Both pairs share a layer: the import goes to a folder listed after the importing one.
    expect(problems.sideways).toEqual([
      'actions/session-action.ts -> ../sessions/session-runtime.js (actions imports sessions)',
      'tools/tool.ts -> ../guardrails/guardrail.js (tools imports guardrails)',
    ]);
    expect(problems.upward).toEqual([]);
    expect(problems.cycles).toContain('actions -> sessions -> actions');
  });

  it('fails on a type import of a folder of a higher layer (a step importing the session runtime)', () => {
    const tree = copyOfSrc();
    appendFileSync(
      join(tree, 'actors', 'model-step.ts'),
      "\nimport type { SessionRuntime as Back } from '../sessions/session-runtime.js';\nexport type Up = Back;\n",
    );
    expect(layeringProblems(tree).upward).toEqual([
      'actors/model-step.ts -> ../sessions/session-runtime.js (actors imports sessions)',
    ]);
  });

  it('lets a folder import a folder listed before it in its own layer', () => {
    const tree = copyOfSrc();
    appendFileSync(
      join(tree, 'guardrails', 'guardrail.ts'),
      "\nexport type { Tool as Earlier } from '../tools/tool.js';\n",
    );
    expect(layeringProblems(tree)).toEqual({
      unlisted: [],
      twice: [],
      upward: [],
      sideways: [],
      cycles: [],
    });
  });

  it('fails on a folder listed twice, and reads the layers it is given', () => {
    const tree = src; // read only
    const twice: Layer[] = LAYERS.map((layer) =>
      layer.name === 'Core'
        ? { ...layer, folders: [...layer.folders, { folder: 'errors', holds: 'again' }] }
        : layer,
    );
    expect(layeringProblems(tree, twice).twice).toEqual(['errors']);
    // Swap two layers: what was down is now up.
    const swapped = [...LAYERS];
    [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
    expect(layeringProblems(tree, swapped).upward).toContain(
      'machines/run-machine.ts -> ../errors/agentstate-error.js (machines imports errors)',
    );
  });

  it('fails on a folder no layer lists', () => {
    const tree = copyOfSrc();
    cpSync(join(tree, 'core'), join(tree, 'misc'), { recursive: true });
    expect(layeringProblems(tree).unlisted).toEqual(['misc']);
  });
});
