import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import * as keys from '../session-keys.js';
import { decodeStored, encodeStored } from '../session-schemas.js';
import type {
  DecisionInbox,
  DecisionSubmission,
  DecisionWatch,
  SubmittedDecisions,
} from '../decision-inbox.js';
import type { PostgresDatabase } from './postgres-database.js';
import { checkedSessionId } from './postgres-leases.js';

const SubmissionSchema = z.lazy(() =>
  z.object({
    runId: z.string().min(1),
    decisions: z.array(z.unknown()),
    at: z.number().int().nonnegative(),
  }),
);

/** The sealed key of a submission's value: `q!<owner>!<sid>!<runId>`. */
const submissionKey = (key: DecisionSubmission['key'], runId: string): string =>
  `q!${keys.sessionPart(key)}!${keys.encodeKeyPart(runId, 'runId')}`;

/**
 * The decision inbox on PostgreSQL: `agentstate_decisions` rows, and a `NOTIFY` on the
 * schema's channel sent by the same statement that inserts one, so a listener hears of a
 * submission exactly when it is committed. Listening takes a dedicated connection (not one of
 * the pool's: LISTEN is session state), so it needs a direct or session-mode connection;
 * behind a transaction-mode pooler the scheduler's polling still finds every submission.
 */
export class PostgresDecisions implements DecisionInbox {
  /** The NOTIFY channel of this store's schema (at most 63 bytes, whatever the schema). */
  readonly channel: string;

  constructor(private readonly db: PostgresDatabase) {
    this.channel = `agentstate_${createHash('sha1').update(db.schema).digest('hex').slice(0, 24)}`;
  }

  async submitDecisions(submission: DecisionSubmission): Promise<void> {
    const { key, runId, decisions, at } = submission;
    checkedSessionId(key);
    const value = SubmissionSchema.parse({ runId, decisions, at });
    await this.db.query('submit decisions', key, () => this.db.sql.submitDecisions(), [
      keys.ownerPart(key.userId),
      key.sessionId,
      runId,
      encodeStored(submissionKey(key, runId), value),
      at,
      this.channel,
    ]);
  }

  async submittedDecisions(query: {
    limit: number;
  }): Promise<{ submitted: SubmittedDecisions[]; damaged: Error[] }> {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
      throw new TypeError(
        `submittedDecisions: limit must be a positive integer, got ${query.limit}`,
      );
    }
    const { rows } = await this.db.query<{
      owner: string;
      session_id: string;
      id: string;
      run_id: string;
      decisions: string;
    }>('read submitted decisions', {}, () => this.db.sql.submittedDecisions(), [query.limit]);
    const page = { submitted: [] as SubmittedDecisions[], damaged: [] as Error[] };
    for (const row of rows) {
      const where = `q!${row.owner}!${row.session_id}!${row.id}`;
      try {
        const key = { sessionId: row.session_id, userId: keys.userOfOwnerPart(row.owner) };
        const value = decodeStored(submissionKey(key, row.run_id), row.decisions, SubmissionSchema);
        if (value.runId !== row.run_id) throw new TypeError('run id differs from its row');
        page.submitted.push({ key, id: row.id, ...value });
      } catch (error) {
        page.damaged.push(
          error instanceof InvalidSessionRecordError
            ? error
            : new InvalidSessionRecordError(where, String(error)),
        );
      }
    }
    return page;
  }

  async dropDecisions(entry: SubmittedDecisions): Promise<void> {
    await this.db.query('drop submitted decisions', entry.key, () => this.db.sql.dropDecisions(), [
      keys.ownerPart(entry.key.userId),
      entry.key.sessionId,
      entry.id,
    ]);
  }

  watchDecisions(
    onSubmitted: () => void,
    onLost: (error: unknown) => void,
  ): Promise<DecisionWatch> {
    return this.db.listen(this.channel, onSubmitted, onLost);
  }
}
