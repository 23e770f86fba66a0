import type { SessionStatus } from '../persistence/session-store.js';

type StateValue = string | { [key: string]: StateValue };

/** The lifecycle status of a session snapshot's state value. */
export function sessionStatusOf(value: StateValue): SessionStatus {
  const top = typeof value === 'string' ? value : Object.keys(value)[0];
  switch (top) {
    case 'suspended':
    case 'completed':
    case 'failed':
    case 'deleted':
      return top;
    case 'active':
    case undefined:
    default:
      return 'active';
  }
}

/**
 * A state value as one dotted string, e.g. `approvals.checking`; the regions of a parallel
 * state each a full path, joined by `,` (`{ p: { a: 'x', b: 'y' } }` reads `p.a.x,p.b.y`).
 */
export function stateName(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .flatMap(([k, v]) => {
      const inner = v === undefined ? '' : stateName(v);
      return inner ? inner.split(',').map((leaf) => `${k}.${leaf}`) : [k];
    })
    .join(',');
}
