import { billsAgent, billsModel } from './eval-sessions.js';

/**
 * An app module for the command line's `--agent` in the eval tests: the bills agent as stored
 * (`--export baseline`) and the deliberately worse candidate (`--export careless`, paying $1
 * more for every bill under $50).
 */
export const baseline = billsAgent();
export const careless = billsAgent(billsModel({ careless: true }));
