import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { z } from 'zod';
import { LevelSessionStore, tool, type RunStream, type RunStreamEvent } from '../../src/index.js';

/** A ULID: 26 characters of Crockford base32 (no I, L, O, U). */
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Adds two numbers. */
export const add = tool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});

/** Multiplies two numbers. */
export const multiply = tool({
  name: 'multiply',
  description: 'Multiplies two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a * b,
});

/** A LevelDB store in a fresh temp folder; `cleanup` closes it and removes the folder. */
export async function tempLevelStore(): Promise<{
  store: LevelSessionStore;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'agentstate-agent-'));
  const store = await LevelSessionStore.open({ path: dir });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The error `promise` rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }
  return expect.fail('expected a rejection');
}

/** Every event of a run stream, in order. */
export async function collect<T>(stream: RunStream<T>): Promise<RunStreamEvent<T>[]> {
  const events: RunStreamEvent<T>[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
