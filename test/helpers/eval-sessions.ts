import { Agent, type SessionStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { billPayingModel, bills, firstUserText } from '../../examples/agents/bills.js';
import { supportAgent } from '../../examples/agents/support.js';

/**
 * Stored sessions of the examples' agents for the eval tests and the bench: bills paying what
 * each user asks (approvals over $100 approved or rejected), and support routing each message
 * to billing, shipping or both (refunds approved or rejected). Deterministic scripted models.
 */

/** One bill a user asks to pay, and the decision on it when it needs one (over $100). */
export interface BillRequest {
  payee: string;
  amountUsd: number;
  decision?: 'approve' | 'reject';
}

/** Twenty bills: six under $50, seven up to $100, seven over (four approved, three rejected). */
export const BILL_REQUESTS: readonly BillRequest[] = [
  { payee: 'ACME Power', amountUsd: 20 },
  { payee: 'City Water', amountUsd: 35 },
  { payee: 'Fiber Net', amountUsd: 48 },
  { payee: 'Gym Club', amountUsd: 60 },
  { payee: 'Phone Co', amountUsd: 75 },
  { payee: 'Gas Works', amountUsd: 90 },
  { payee: 'Insurer', amountUsd: 99 },
  { payee: 'ACME Power', amountUsd: 120, decision: 'approve' },
  { payee: 'Landlord', amountUsd: 150, decision: 'reject' },
  { payee: 'Car Loan', amountUsd: 210, decision: 'approve' },
  { payee: 'Dentist', amountUsd: 300, decision: 'reject' },
  { payee: 'Bookshop', amountUsd: 45 },
  { payee: 'Newspaper', amountUsd: 15 },
  { payee: 'Vet', amountUsd: 180, decision: 'approve' },
  { payee: 'Tax Office', amountUsd: 500, decision: 'reject' },
  { payee: 'Cinema', amountUsd: 64 },
  { payee: 'Bakery', amountUsd: 12 },
  { payee: 'School', amountUsd: 130, decision: 'approve' },
  { payee: 'Garage', amountUsd: 250, decision: 'reject' },
  { payee: 'Florist', amountUsd: 80 },
];

/** What a user types to ask for `bill`. */
export const billText = (bill: BillRequest): string =>
  `Please pay ${bill.payee} $${bill.amountUsd}.`;

/**
 * The bills agent's model, paying what the user asked, then saying what happened; `careless`:
 * the deliberately worse candidate (see `billPayingModel`).
 */
export const billsModel = billPayingModel;

/** The examples' bills agent (its `pay_bill` tool and instructions) with `model`. */
export function billsAgent(model: ScriptedModel = billsModel()): Agent<unknown> {
  return new Agent({ ...bills.options, model });
}

/** One support message, and the decision on its refund when billing is asked. */
export interface SupportRequest {
  text: string;
  decision?: 'approve' | 'reject';
}

/** Ten support messages: refunds (approved or rejected), parcels, and both at once. */
export const SUPPORT_REQUESTS: readonly SupportRequest[] = [
  { text: 'I want a refund for order A-77.', decision: 'approve' },
  { text: 'Where is my parcel A-77?' },
  { text: 'Refund A-77 please, and where is my parcel?', decision: 'approve' },
  { text: 'I want a refund, it broke.', decision: 'reject' },
  { text: 'Where is my parcel? It is late.' },
  { text: 'Refund and where is the parcel?', decision: 'reject' },
  { text: 'Please refund order A-77.', decision: 'approve' },
  { text: 'Where is order A-77 now?' },
  { text: 'Refund me.', decision: 'reject' },
  { text: 'Where is my parcel and can I get a refund?', decision: 'approve' },
];

/**
 * The support triage's model: a message saying "refund" goes to billing, one saying "where" to
 * shipping (both when it says both); then it joins what they said. `misroute`: the worse
 * candidate, sending parcel questions to billing.
 */
export function triageModel(options: { misroute?: boolean } = {}): ScriptedModel {
  return new ScriptedModel((request) => {
    const results = request.items.filter((i) => i.type === 'tool_result');
    if (results.length > 0) {
      return { text: results.map((r) => (r.type === 'tool_result' ? r.output : '')).join(' | ') };
    }
    const text = firstUserText(request).toLowerCase();
    const calls = [];
    if (text.includes('refund') || (options.misroute === true && text.includes('where'))) {
      calls.push({ name: 'ask_billing', arguments: { input: text } });
    }
    if (text.includes('where') && options.misroute !== true) {
      calls.push({ name: 'ask_shipping', arguments: { input: text } });
    }
    return calls.length > 0 ? { toolCalls: calls } : { text: 'How can I help?' };
  });
}

/** The examples' support agent (triage, billing, shipping) with the triage's `model`. */
export function supportTriage(model: ScriptedModel = triageModel()): Agent<unknown> {
  return new Agent({ ...supportAgent().options, model });
}

/** A session stored by {@link storeBillSessions} or {@link storeSupportSessions}. */
export interface StoredSession {
  sessionId: string;
  /** The run's decisions, in order. */
  decisions: ('approve' | 'reject')[];
}

/** Runs `text` in a new session of `agent`, deciding each pause with `decision` until it ends. */
async function runSession(
  agent: Agent<unknown>,
  store: SessionStore,
  key: { sessionId: string; userId?: string | undefined },
  text: string,
  decision: 'approve' | 'reject' | undefined,
): Promise<StoredSession> {
  const decisions: ('approve' | 'reject')[] = [];
  let result = await agent.run(text, { ...key, store });
  while (result.interrupted && result.interruptionReason === 'approval') {
    if (decision === undefined) throw new Error(`${key.sessionId}: an approval nobody decides`);
    for (const { callId } of result.state.interruptions) {
      decisions.push(decision);
      if (decision === 'approve') result.state.approve(callId);
      else result.state.reject(callId, { message: 'The user declined.' });
    }
    result = await agent.resume(result.state, { store });
  }
  if (result.interrupted) throw new Error(`${key.sessionId}: ${result.interruptionReason}`);
  return { sessionId: key.sessionId, decisions };
}

/** The twenty {@link BILL_REQUESTS} as sessions `bill-01`..`bill-20` of `userId` in `store`. */
export async function storeBillSessions(
  store: SessionStore,
  userId?: string,
  agent: Agent<unknown> = billsAgent(),
): Promise<StoredSession[]> {
  const stored: StoredSession[] = [];
  for (const [i, bill] of BILL_REQUESTS.entries()) {
    const sessionId = `bill-${String(i + 1).padStart(2, '0')}`;
    stored.push(
      await runSession(agent, store, { sessionId, userId }, billText(bill), bill.decision),
    );
  }
  return stored;
}

/** The ten {@link SUPPORT_REQUESTS} as sessions `support-01`..`support-10` of `userId`. */
export async function storeSupportSessions(
  store: SessionStore,
  userId?: string,
  agent: Agent<unknown> = supportTriage(),
): Promise<StoredSession[]> {
  const stored: StoredSession[] = [];
  for (const [i, ask] of SUPPORT_REQUESTS.entries()) {
    const sessionId = `support-${String(i + 1).padStart(2, '0')}`;
    stored.push(await runSession(agent, store, { sessionId, userId }, ask.text, ask.decision));
  }
  return stored;
}
