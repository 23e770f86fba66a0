import { stateName } from '../../runs/session-status.js';

type StateValue = string | { [key: string]: StateValue };

function isStateValue(value: unknown): value is StateValue {
  if (typeof value === 'string') return true;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every(isStateValue);
}

/** A machine's state value on one line: `refund.drafting`; parallel regions comma-separated. */
export function stateText(value: unknown): string {
  return isStateValue(value) ? stateName(value) : JSON.stringify(value ?? null);
}
