import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMachine } from '../../src/machines/run-machine.js';
import { wireRunActors } from '../../src/session-host/run-wiring.js';

/**
 * `src/actors/` holds the run's steps named as steps (issue 41): every step actor the run
 * machine invokes by name is wired by `session-host/run-wiring.ts`, and is the export of the
 * file under `src/actors/` named after it (`toolCall` in `tool-call.ts`), so a reader finds a
 * step of the chart by its name.
 */
const ACTORS = fileURLToPath(new URL('../../src/actors/', import.meta.url));
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The run machine's step actors: its named actors but itself (a sub-agent run). */
const steps = Object.keys(runMachine().implementations.actors)
  .filter((name) => name !== 'subRun')
  .sort();

describe('actors/: the run steps, each named after the actor the run machine invokes', () => {
  it('the run machine names its steps, and run-wiring wires exactly those', () => {
    expect(steps).toEqual([
      'approvalCheck',
      'durableTimer',
      'guardrailCheck',
      'modelStep',
      'toolCall',
    ]);
    const wired = wireRunActors(() => {
      throw new Error('no session: only the names are read');
    });
    expect(Object.keys(wired).sort()).toEqual(steps);
  });

  it.each(steps)('step %s is the export of src/actors/ named after it', async (name) => {
    const file = `${kebab(name)}.ts`;
    expect(existsSync(`${ACTORS}${file}`), `src/actors/${file}`).toBe(true);
    const module = (await import(/* @vite-ignore */ `${ACTORS}${file}`)) as Record<string, unknown>;
    expect(typeof module[name]).toBe('function');
  });
});
