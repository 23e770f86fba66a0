import { mkdir, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, expect, inject, it } from 'vitest';
import { finished } from '../helpers/child-process.js';
import { spawn } from 'node:child_process';

/** A user's agent, in JavaScript, importing the package by its name: a lying "idempotent" charge. */
const AGENT = `
import { z } from 'zod';
import { Agent, tool } from 'agentstate-runtime';
import { EffectLedger, ScriptedModel } from 'agentstate-runtime/testing';

export const effects = new EffectLedger();
const charge = tool({
  name: 'charge',
  description: 'Charges a card',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  idempotent: true,
  execute: ({ amount }, { callId }) => {
    effects.record(callId, 'charge', { amount });
    return 'charged ' + amount;
  },
});
export default new Agent({
  name: 'shop',
  model: new ScriptedModel((r) =>
    r.items.some((i) => i.type === 'tool_result')
      ? { text: 'done' }
      : { toolCalls: [{ name: 'charge', arguments: { amount: 5 } }] },
  ),
  tools: [charge],
});
`;

/** The user's test, as plain JavaScript: the points of the tool's finish, in child processes. */
const EXPLORE = `
import { fileURLToPath } from 'node:url';
import { exploreCrashes } from 'agentstate-runtime/testing';
import agent, { effects } from './agent.mjs';

const report = await exploreCrashes(
  agent,
  { name: 'charge', steps: [{ send: 'charge me' }, { approve: 'charge' }] },
  {
    effects,
    writes: [8],
    replayDir: fileURLToPath(new URL('./replays', import.meta.url)),
    processes: { module: fileURLToPath(new URL('./agent.mjs', import.meta.url)) },
  },
);
console.log(JSON.stringify({
  label: report.boundaries[8].label,
  points: report.points,
  failures: report.failures.map((f) => [f.point.side, f.violations.map((v) => v.kind)]),
}));
`;

let folder: string | undefined;
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

it('the package as built runs each point in a child with plain node (no TypeScript loader)', async () => {
  // Inside the built package's folder: the package resolves itself by name, zod from its node_modules.
  folder = join(inject('builtPackage'), 'crash-consumers', randomUUID());
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'agent.mjs'), AGENT);
  await writeFile(join(folder, 'explore.mjs'), EXPLORE);
  const done = await finished(
    spawn(process.execPath, [join(folder, 'explore.mjs')], {
      cwd: folder,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  expect(done.stderr).toBe('');
  const result = JSON.parse(done.stdout) as {
    label: string;
    points: number;
    failures: [string, string[]][];
  };
  expect(result.label).toBe('save: tool charge finished (call_1_0)');
  expect(result.points).toBe(3);
  expect(result.failures.find(([side]) => side === 'before')?.[1]).toContain('effect-twice');
}, 120_000);
