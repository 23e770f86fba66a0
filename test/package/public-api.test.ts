import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as mcp from '../../src/mcp.js';
import * as testing from '../../src/testing.js';
import * as aiSdk from '../../src/ai-sdk.js';
import * as postgres from '../../src/postgres.js';
import * as inspect from '../../src/inspect.js';
import * as http from '../../src/http.js';
import * as a2a from '../../src/a2a.js';
import * as store from '../../src/store.js';
import * as evals from '../../src/evals.js';
import {
  AI_SDK_TYPES,
  AI_SDK_VALUES,
  MCP_TYPES,
  MCP_VALUES,
  ROOT_TYPES,
  ROOT_VALUES,
  TESTING_TYPES,
  TESTING_VALUES,
  POSTGRES_TYPES,
  POSTGRES_VALUES,
  INSPECT_TYPES,
  HTTP_VALUES,
  HTTP_TYPES,
  A2A_VALUES,
  A2A_TYPES,
  INSPECT_VALUES,
  STORE_TYPES,
  STORE_VALUES,
  EVALS_TYPES,
  EVALS_VALUES,
  exportedNames,
  type ExportedNames,
} from '../helpers/public-api.js';

const entry = (name: string) => fileURLToPath(new URL(`../../src/${name}`, import.meta.url));

const ENTRIES = [
  'index.ts',
  'testing.ts',
  'ai-sdk.ts',
  'mcp.ts',
  'postgres.ts',
  'inspect.ts',
  'http.ts',
  'a2a.ts',
  'store.ts',
  'evals.ts',
] as const;

describe('public API', () => {
  // One TypeScript program for all the entries: each one alone costs seconds.
  const found = new Map<string, ExportedNames>();
  beforeAll(() => {
    const names = exportedNames(ENTRIES.map(entry));
    ENTRIES.forEach((name, i) => found.set(name, names[i]!));
  });
  const exportsOf = (name: (typeof ENTRIES)[number]) => found.get(name);

  it('the root export holds the public API and nothing else', () => {
    const names = exportsOf('index.ts');
    expect(names!.values).toEqual(ROOT_VALUES);
    expect(names!.types).toEqual(ROOT_TYPES);
  });

  it('the root module exports exactly the pinned values at run time', () => {
    expect(Object.keys(root).sort()).toEqual(ROOT_VALUES);
  });

  it('agentstate/testing exports the scripted model, the memory store and the fake clock', () => {
    const names = exportsOf('testing.ts');
    expect(names!.values).toEqual(TESTING_VALUES);
    expect(names!.types).toEqual(TESTING_TYPES);
    expect(Object.keys(testing).sort()).toEqual(TESTING_VALUES);
  });

  it('agentstate/ai-sdk exports the AI SDK adapter only', () => {
    const names = exportsOf('ai-sdk.ts');
    expect(names!.values).toEqual(AI_SDK_VALUES);
    expect(names!.types).toEqual(AI_SDK_TYPES);
    expect(Object.keys(aiSdk).sort()).toEqual(AI_SDK_VALUES);
  });

  it('agentstate/mcp exports mcpToolkit and its option types', () => {
    const names = exportsOf('mcp.ts');
    expect(names!.values).toEqual(MCP_VALUES);
    expect(names!.types).toEqual(MCP_TYPES);
    expect(Object.keys(mcp).sort()).toEqual(MCP_VALUES);
  });

  it('agentstate/postgres exports the PostgreSQL store and nothing else', () => {
    const names = exportsOf('postgres.ts');
    expect(names!.values).toEqual(POSTGRES_VALUES);
    expect(names!.types).toEqual(POSTGRES_TYPES);
    expect(Object.keys(postgres).sort()).toEqual(POSTGRES_VALUES);
  });

  it('agentstate/inspect exports startInspector and its types', () => {
    const names = exportsOf('inspect.ts');
    expect(names!.values).toEqual(INSPECT_VALUES);
    expect(names!.types).toEqual(INSPECT_TYPES);
    expect(Object.keys(inspect).sort()).toEqual(INSPECT_VALUES);
  });

  it('agentstate/http exports the chat handler, its Node listener and their types', () => {
    const names = exportsOf('http.ts');
    expect(names!.values).toEqual(HTTP_VALUES);
    expect(names!.types).toEqual(HTTP_TYPES);
    expect(Object.keys(http).sort()).toEqual(HTTP_VALUES);
  });

  it('agentstate/a2a exports the A2A handler, its Node listener and their types', () => {
    const names = exportsOf('a2a.ts');
    expect(names!.values).toEqual(A2A_VALUES);
    expect(names!.types).toEqual(A2A_TYPES);
    expect(Object.keys(a2a).sort()).toEqual(A2A_VALUES);
  });

  it('agentstate/store exports the store contract, its parts, the record codecs and the contract suite', () => {
    const names = exportsOf('store.ts');
    expect(names!.values).toEqual(STORE_VALUES);
    expect(names!.types).toEqual(STORE_TYPES);
    expect(Object.keys(store).sort()).toEqual(STORE_VALUES);
  });

  it('agentstate/evals exports datasets, rows from stored runs, eval runs and their types', () => {
    const names = exportsOf('evals.ts');
    expect(names!.values).toEqual(EVALS_VALUES);
    expect(names!.types).toEqual(EVALS_TYPES);
    expect(Object.keys(evals).sort()).toEqual(EVALS_VALUES);
  });

  it('every entry lists its exports by name (no export *)', () => {
    const entries = [
      'index',
      'testing',
      'ai-sdk',
      'mcp',
      'postgres',
      'inspect',
      'http',
      'a2a',
      'store',
      'evals',
    ];
    const starred = entries.filter((name) =>
      /^export \*/m.test(readFileSync(entry(`${name}.ts`), 'utf8')),
    );
    expect(starred).toEqual([]);
  });

  it('internals stay out of the root export', () => {
    const leaked = [
      'readRunResult',
      'AgentBinding',
      'invokeTool',
      'storedRunInFlight',
      'describeSession',
      'KvSessionStore',
      'runMachine',
      'sessionMachine',
      'defaultStore',
      'serializeError',
    ].filter((name) => name in root);
    expect(leaked).toEqual([]);
  });
});
