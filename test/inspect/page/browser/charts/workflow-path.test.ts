import { describe, expect, it } from 'vitest';
import { fromPromise, setup } from 'xstate';
import { machineGraph } from '../../../../../src/inspect/machine-graph.js';
import { layoutGraph } from '../../../../../src/inspect/page/browser/charts/graph-layout.js';
import {
  chartEvent,
  workflowPath,
} from '../../../../../src/inspect/page/browser/charts/workflow-path.js';
import type { WorkflowHop } from '../../../../../src/inspect/page/browser/workflow-api-types.js';

/** An app's machine: validate, then a compound review whose draft waits 3 days at most. */
const machine = setup({
  actors: {
    validate: fromPromise(async () => true),
    drafter: fromPromise(async () => 'draft'),
  },
  delays: { approvalTimeout: 3 * 24 * 3600 * 1000 },
}).createMachine({
  id: 'order',
  initial: 'validating',
  on: { NOTE: { actions: () => undefined } },
  states: {
    validating: { invoke: { src: 'validate', onDone: 'review', onError: 'rejected' } },
    review: {
      initial: 'drafting',
      states: {
        drafting: {
          invoke: { src: 'drafter', onDone: '#order.done' },
          after: { approvalTimeout: '#order.escalated' },
        },
      },
    },
    escalated: { on: { DECIDE: 'done' } },
    rejected: { type: 'final' },
    done: { type: 'final' },
  },
});

const hop = (step: number, at: number, type: string, state: string): WorkflowHop => ({
  step,
  at,
  source: 'step',
  type,
  state,
  status: 'active',
});

describe("a workflow's path on its chart, laid out in the page", () => {
  const graph = machineGraph(machine);
  const layout = layoutGraph('orders', graph);
  const edge = (from: string, to: string, event: string) =>
    layout.edges.find((e) => e.from === from && e.to === to && e.event === event)!.id;

  it("names a journaled event as the chart names its transition: an invoked actor's end by its src, a delay by its name", () => {
    expect(chartEvent('xstate.done.actor.0.order.validating', graph)).toBe('onDone(validate)');
    expect(chartEvent('xstate.error.actor.0.order.review.drafting', graph)).toBe(
      'onError(drafter)',
    );
    expect(chartEvent('xstate.after.approvalTimeout.order.review.drafting', graph)).toBe(
      'after(approvalTimeout)',
    );
    expect(chartEvent('DECIDE', graph)).toBe('DECIDE');
    // The chart draws those transitions under the same names.
    expect(layout.edges.map((e) => e.event)).toEqual(
      expect.arrayContaining(['onDone(validate)', 'after(approvalTimeout)', 'DECIDE']),
    );
    // A transition that stays where it is (actions only) is a line of its "any state" box.
    expect(layout.markers.find((m) => m.id === '#any')?.internal).toEqual(['NOTE']);
  });

  it('takes the edges of each event from a state it was in to a state it reached, with the initial edges of what it entered, and times each state', () => {
    const hops = [
      hop(0, 1000, 'xstate.init', 'validating'),
      hop(2, 1040, 'xstate.done.actor.0.order.validating', 'review.drafting'),
      hop(3, 5000, 'xstate.after.approvalTimeout.order.review.drafting', 'escalated'),
    ];
    const path = workflowPath(layout, graph, hops);
    expect([...path.edges].sort()).toEqual(
      [
        edge('#initial', 'validating', ''),
        edge('validating', 'review', 'onDone(validate)'),
        edge('review#initial', 'review.drafting', ''),
        edge('review.drafting', 'escalated', 'after(approvalTimeout)'),
      ].sort(),
    );
    expect(path.visits.get('validating')).toMatchObject({ entered: 1, ms: 40 });
    expect(path.visits.get('review.drafting')).toMatchObject({ entered: 1, ms: 3960 });
    expect(path.visits.get('review')).toMatchObject({ entered: 1, ms: 3960 });
    // Where it stands has no end yet; states it never entered have no visit.
    expect(path.visits.get('escalated')).toMatchObject({ entered: 1, ms: 0 });
    expect(path.visits.has('done')).toBe(false);
    expect([...path.current]).toEqual(['escalated']);
  });

  it('up to a hop (time travel): only what it took by then', () => {
    const hops = [
      hop(0, 1000, 'xstate.init', 'validating'),
      hop(2, 1040, 'xstate.done.actor.0.order.validating', 'review.drafting'),
    ];
    const path = workflowPath(layout, graph, hops.slice(0, 1));
    expect([...path.edges]).toEqual([edge('#initial', 'validating', '')]);
    expect([...path.current]).toEqual(['validating']);
  });
});
