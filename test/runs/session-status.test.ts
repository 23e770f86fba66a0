import { describe, expect, it } from 'vitest';
import { stateName } from '../../src/runs/session-status.js';

describe('stateName', () => {
  it('reads a state value as dotted paths, each region of a parallel state in full', () => {
    expect(stateName('idle')).toBe('idle');
    expect(stateName({ active: 'running' })).toBe('active.running');
    expect(stateName({ approvals: { checking: 'slow' } })).toBe('approvals.checking.slow');
    expect(stateName({ fulfil: { pack: 'done', ship: { label: 'printed' } } })).toBe(
      'fulfil.pack.done,fulfil.ship.label.printed',
    );
    expect(stateName({ review: {} })).toBe('review');
  });
});
