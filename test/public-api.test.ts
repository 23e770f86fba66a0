import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';
import * as testing from '../src/testing.js';
import * as postgres from '../src/postgres.js';
import {
  ROOT_TYPES,
  ROOT_VALUES,
  TESTING_TYPES,
  TESTING_VALUES,
  POSTGRES_TYPES,
  POSTGRES_VALUES,
  exportedNames,
} from './helpers/public-api.js';

const entry = (name: string) => fileURLToPath(new URL(`../src/${name}`, import.meta.url));

describe('public API', () => {
  it('the root export holds the public API and nothing else', () => {
    const [names] = exportedNames([entry('index.ts')]);
    expect(names!.values).toEqual(ROOT_VALUES);
    expect(names!.types).toEqual(ROOT_TYPES);
  });

  it('the root module exports exactly the pinned values at run time', () => {
    expect(Object.keys(root).sort()).toEqual(ROOT_VALUES);
  });

  it('agentstate/testing exports the scripted model, the memory store and the fake clock', () => {
    const [names] = exportedNames([entry('testing.ts')]);
    expect(names!.values).toEqual(TESTING_VALUES);
    expect(names!.types).toEqual(TESTING_TYPES);
    expect(Object.keys(testing).sort()).toEqual(TESTING_VALUES);
  });

  it('agentstate/postgres exports the PostgreSQL store and nothing else', () => {
    const [names] = exportedNames([entry('postgres.ts')]);
    expect(names!.values).toEqual(POSTGRES_VALUES);
    expect(names!.types).toEqual(POSTGRES_TYPES);
    expect(Object.keys(postgres).sort()).toEqual(POSTGRES_VALUES);
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
