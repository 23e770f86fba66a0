import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMachine, setup, type AnyStateMachine } from 'xstate';
import {
  CHART_LAYOUTS_MODULE,
  CHART_MACHINES,
  chartLayoutsModule,
  layoutMachine,
} from '../../../../../scripts/chart-layouts.js';
import { walk } from '../../../../../scripts/machine-charts.js';
import { CHART_LAYOUTS } from '../../../../../src/inspect/page/browser/charts/chart-layouts.js';
import type { TimelineStep } from '../../../../../src/inspect/page/browser/api-types.js';
import type {
  ChartBox,
  ChartLayout,
} from '../../../../../src/inspect/page/browser/charts/chart-layout.js';
import {
  runPath,
  type RunPath,
} from '../../../../../src/inspect/page/browser/charts/state-chart-path.js';

/** Every state and transition of `machine`, as the layout must show them. */
function expected(machine: AnyStateMachine) {
  const { root, nodes, edges, pathOf } = walk(machine);
  return {
    states: nodes.filter((n) => n !== root).map((n) => pathOf(n.id)),
    initials: nodes.flatMap((n) =>
      n.initial?.target[0] ? [[pathOf(n.id), pathOf(n.initial.target[0].id)]] : [],
    ),
    finals: nodes.filter((n) => n.type === 'final').map((n) => pathOf(n.id)),
    moves: edges.flatMap((e) =>
      e.targets.map((to) => ({ from: e.from, to, event: e.event, guard: e.guard })),
    ),
    stays: edges.filter((e) => e.targets.length === 0),
  };
}

/** Whether `inner` lies inside `outer`. */
const inside = (inner: ChartBox, outer: ChartBox) =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.w <= outer.x + outer.w &&
  inner.y + inner.h <= outer.y + outer.h;

function checkLayout(layout: ChartLayout, machine: AnyStateMachine): void {
  const want = expected(machine);
  expect(layout.states.map((s) => s.path)).toEqual(want.states);
  for (const [parent, initial] of want.initials) {
    const marker = `${parent}#initial`;
    expect(layout.markers.some((m) => m.id === marker && m.kind === 'initial')).toBe(true);
    expect(layout.edges).toContainEqual(expect.objectContaining({ from: marker, to: initial }));
  }
  expect(layout.states.filter((s) => s.type === 'final').map((s) => s.path)).toEqual(want.finals);
  // Every transition with a target is an edge, from its state or from "any state" of the
  // compound state (or machine) that has it; each is labelled with its event and guard.
  const moves = layout.edges
    .filter((e) => e.event !== '')
    .map((e) => ({ from: e.from.replace(/#any$/, ''), to: e.to, event: e.event, guard: e.guard }));
  expect(moves).toEqual(want.moves);
  for (const e of layout.edges.filter((e) => e.event !== '')) {
    if (e.groupedIn) {
      // Gathered with the other transitions into its target: a line of the group's box, whose
      // one arrow goes there.
      const group = layout.markers.find((m) => m.id === e.groupedIn)!;
      expect(group.gathered).toContain(`${e.from.replace(/#any$/, '') || 'any state'}: ${e.label}`);
      const arrow = layout.edges.find((a) => a.from === group.id)!;
      expect(arrow.to).toBe(e.to);
      expect(arrow.gathers).toContain(e.id);
      expect(arrow.points.length).toBeGreaterThanOrEqual(2);
      continue;
    }
    expect(e.points.length).toBeGreaterThanOrEqual(2);
    expect(e.labelBox).toBeDefined();
    if (e.guard) expect(e.label).toContain(`[${e.guard}]`);
  }
  // Every transition that stays is listed in its state, or in the "any state" marker.
  const listed = [
    ...layout.states.flatMap((s) => s.internal.map((l) => `${s.path} ${l}`)),
    ...layout.markers.flatMap((m) => m.internal.map((l) => `${m.parent} ${l}`)),
  ];
  expect(listed.map((l) => l.split(' ')[0])).toEqual(
    expect.arrayContaining(want.stays.map((e) => e.from)),
  );
  expect(listed.length).toBe(want.stays.length);
  // Children are drawn inside their parents, and everything inside the chart.
  const byPath = new Map(layout.states.map((s) => [s.path, s]));
  for (const s of layout.states) {
    if (s.parent) expect(inside(s, byPath.get(s.parent)!)).toBe(true);
    expect(inside(s, { x: 0, y: 0, w: layout.width, h: layout.height })).toBe(true);
  }
}

describe('the statecharts laid out at build time (scripts/chart-layouts.ts)', () => {
  it('the committed chart-layouts.ts is what the machine definitions lay out today (else: npm run build:page)', async () => {
    expect(readFileSync(CHART_LAYOUTS_MODULE, 'utf8')).toBe(await chartLayoutsModule());
  });

  it('every state, initial state, final state and transition of both machines is in the layout', () => {
    for (const [name, machine] of Object.entries(CHART_MACHINES)) {
      checkLayout(CHART_LAYOUTS[name]!, machine);
    }
    // the invoked actors are written in their states, the spawned ones in the state that waits
    // for them
    const run = CHART_LAYOUTS.run!;
    expect(run.states.find((s) => s.path === 'modelCall')?.invokes).toEqual(['modelStep']);
    expect(run.states.filter((s) => s.spawns.length).map((s) => [s.path, s.spawns])).toEqual([
      ['tools', ['toolCall', 'subRun']],
    ]);
    // the many transitions into `failed` are one arrow, from the box that lists them
    const intoFailed = run.edges.filter((e) => e.to === 'failed');
    expect(intoFailed.filter((e) => !e.groupedIn).map((e) => e.from)).toEqual(['failed#from']);
    expect(intoFailed.filter((e) => e.groupedIn).length).toBeGreaterThanOrEqual(9);
  });

  it('lays out any machine from its definition: a state added to it is drawn', () => {
    const machine = setup({ guards: { ready: () => true } }).createMachine({
      id: 'm',
      initial: 'a',
      on: { STOP: '.done' },
      states: {
        a: { on: { GO: { target: 'b', guard: 'ready' } }, always: { target: 'b', guard: 'ready' } },
        b: {
          initial: 'b1',
          states: { b1: { on: { NEXT: 'b2' } }, b2: { on: { BACK: '#m.a', PING: {} } } },
        },
        done: { type: 'final' },
      },
    });
    const layout = layoutMachine('m', machine);
    checkLayout(layout, machine);
    expect(layout.edges.map((e) => e.label)).toEqual(
      expect.arrayContaining(['GO [ready]', '[ready]', 'NEXT', 'BACK', 'STOP']),
    );
    expect(layout.states.find((s) => s.path === 'b.b2')?.internal).toEqual(['PING']);
    const plain = layoutMachine('p', createMachine({ initial: 'x', states: { x: {} } }));
    expect(plain.states.map((s) => s.path)).toEqual(['x']);
  });
});

/** A journaled step as the page reads it. */
const step = (n: number, kind: string, more: Partial<TimelineStep> = {}): TimelineStep => ({
  step: n,
  kind,
  startedAt: 1000 * n,
  endedAt: 1000 * n + 100,
  durationMs: 100,
  restarts: 0,
  changes: [],
  ...more,
});

describe("a run's path on its chart (state-chart-path.ts)", () => {
  const layout = CHART_LAYOUTS.run!;
  const byPath = new Map(layout.states.map((st) => [st.path, st]));
  const leaf = (path: string): string =>
    byPath.get(path)?.initial ? leaf(byPath.get(path)!.initial!) : path;
  const taken = (path: RunPath) => layout.edges.filter((e) => path.edges.has(e.id));
  /**
   * The path is one walk over the chart's own edges: from the initial dot, each taken edge
   * leaves a state the run visited and enters one it visited, and a state it visited without
   * running a step there is eventless routing, a compound state, the wait or where it stands.
   */
  const checkWalk = (path: RunPath, rests: string[]) => {
    const edges = taken(path);
    expect(edges.some((e) => e.from === '#initial')).toBe(true);
    for (const e of edges) {
      if (!e.from.includes('#')) expect(path.visits.has(e.from)).toBe(true);
      expect(path.visits.has(leaf(e.to))).toBe(true);
    }
    for (const [state, visit] of path.visits) {
      const st = byPath.get(state)!;
      if (visit.steps.length || st.passThrough || st.initial || rests.includes(state)) continue;
      throw new Error(`${state} visited without a step`);
    }
  };
  const into = (path: RunPath, state: string) => taken(path).some((e) => leaf(e.to) === state);

  it('follows the journal through the routing states: two turns, a tool call, then completed', () => {
    const model = { toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } };
    const path = runPath(
      layout,
      [step(0, 'model', { model }), step(1, 'tool'), step(2, 'tool'), step(3, 'model', { model })],
      'completed',
    );
    checkWalk(path, ['completed']);
    expect(['modelCall', 'tools', 'completed'].map((st) => into(path, st))).toEqual([
      true,
      true,
      true,
    ]);
    expect(path.visits.get('modelCall')).toMatchObject({ entered: 2, ms: 200 });
    // two tool steps of one turn are one stay in `tools`, from the first start to the last end
    expect(path.visits.get('tools')).toMatchObject({ entered: 1, ms: 1100 });
    expect(path.visits.get('tools')!.steps.map((st) => st.step)).toEqual([1, 2]);
    expect(path.visits.has('awaitingApproval')).toBe(false);
    expect(path.visits.has('failed')).toBe(false);
    expect([...path.current]).toEqual(['completed']);
  });

  it('an approval check that asked a human goes to the wait, and the wait lasts until the tool step', () => {
    const asked = { approvals: [{ callId: 'c1', needsApproval: true }] };
    const waiting = runPath(
      layout,
      [step(0, 'model'), step(1, 'approval', asked)],
      'awaitingApproval',
    );
    checkWalk(waiting, ['awaitingApproval']);
    expect(into(waiting, 'awaitingApproval')).toBe(true);
    expect(waiting.visits.get('approvals.checking')?.steps.map((st) => st.kind)).toEqual([
      'approval',
    ]);
    expect(waiting.visits.get('awaitingApproval')).toMatchObject({ entered: 1, ms: 0 });
    const done = runPath(
      layout,
      [step(0, 'model'), step(1, 'approval', asked), step(2, 'tool'), step(3, 'model')],
      'completed',
    );
    checkWalk(done, ['awaitingApproval', 'completed']);
    // waited from the check's end (1100) to the tool's start (2000)
    expect(done.visits.get('awaitingApproval')).toMatchObject({ entered: 1, ms: 900 });
    expect(taken(done).some((e) => e.from === 'awaitingApproval' && e.to === 'tools')).toBe(true);
  });

  it('input guardrails run before the first model call, output guardrails after the last', () => {
    const path = runPath(
      layout,
      [step(0, 'guardrail'), step(1, 'model'), step(2, 'guardrail')],
      'completed',
    );
    checkWalk(path, ['completed']);
    expect(path.visits.get('inputGuardrails')?.steps.map((st) => st.step)).toEqual([0]);
    expect(path.visits.get('outputGuardrails')?.steps.map((st) => st.step)).toEqual([2]);
    expect(taken(path).some((e) => e.from === 'outputGuardrails' && e.to === 'completed')).toBe(
      true,
    );
  });
});
