import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { runMachine } from '../../src/machines/run-machine.js';
import { sessionMachine } from '../../src/machines/session-machine.js';
import { MACHINES_PAGE, machinesPage, mermaidChart } from '../../scripts/machine-charts.js';

/**
 * docs/machines.md is drawn from the machine definitions by scripts/machine-charts.ts; a
 * machine changed without running the script fails here (issue 27).
 */
describe('the machine charts in docs/machines.md', () => {
  it('are what the script draws from src/machines today', async () => {
    expect(readFileSync(MACHINES_PAGE, 'utf8')).toBe(await machinesPage());
  });

  it('name every state, named guard and invoked actor of both machines', () => {
    const run = mermaidChart(runMachine());
    for (const state of ['turnStart', 'modelCall', 'checking', 'awaitingApproval']) {
      expect(run).toContain(state);
    }
    for (const guard of ['maxTurnsReached', 'budgetExhausted', 'hasCalls', 'allCallsDone']) {
      expect(run).toContain(`[${guard}]`);
    }
    expect(run).toContain('modelCall : invokes modelStep');
    expect(run).toContain('completed --> [*]');
    const session = mermaidChart(sessionMachine());
    expect(session).toContain('idle --> running : SEND_MESSAGE');
    expect(session).toContain('running : invokes run');
  });

  it('change when a definition changes, so a stale page is caught', async () => {
    const page = await machinesPage();
    const renamed = setup({ guards: { ready: () => true } }).createMachine({
      id: 'session',
      initial: 'open',
      states: {
        open: { on: { SEND_MESSAGE: { guard: 'ready', target: 'closed' } } },
        closed: { type: 'final' },
      },
    });
    const chart = mermaidChart(renamed);
    expect(chart).toContain('open --> closed : SEND_MESSAGE [ready]');
    expect(page).not.toContain(chart);
  });
});
