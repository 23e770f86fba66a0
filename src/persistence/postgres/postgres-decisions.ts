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
import type { SharedListen, SharedWatch } from './notifications/shared-listen.js';

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

/** The decision inbox's statements, built once per store (table names qualified with its schema). */
function decisionStatements(t: (table: string) => string) {
  return {
    /**
     * $1 owner, $2 session, $3 runId, $4 decisions, $5 at, $6 channel: records a submission and
     * notifies the channel's listeners (delivered when the statement commits).
     */
    submit: `WITH ins AS (
        INSERT INTO ${t('agentstate_decisions')} (owner, session_id, run_id, decisions, at)
        VALUES ($1, $2, $3, $4, $5) RETURNING id
      )
      SELECT pg_notify($6, '') FROM ins`,
    /** $1 limit: the oldest submissions, every owner. */
    submitted: `SELECT owner, session_id, id, run_id, decisions, at FROM ${t('agentstate_decisions')}
        ORDER BY id LIMIT $1`,
    /** $1 owner, $2 session, $3 id. */
    drop: `DELETE FROM ${t('agentstate_decisions')} WHERE owner = $1 AND session_id = $2 AND id = $3`,
  };
}

/**
 * The decision inbox on PostgreSQL: `agentstate_decisions` rows, and a `NOTIFY` on the
 * schema's channel sent by the same statement that inserts one, so a listener hears of a
 * submission exactly when it is committed. Listening takes a dedicated connection (not one of
 * the pool's: LISTEN is session state), so it needs a direct or session-mode connection;
 * behind a transaction-mode pooler the scheduler's polling still finds every submission. The
 * watchers of one store object (the scheduler, each runtime's cancel watch, and the session
 * watches) share one such connection (`SharedListen`).
 */
export class PostgresDecisions implements DecisionInbox {
  /** The NOTIFY channel of this store's schema (at most 63 bytes, whatever the schema). */
  readonly channel: string;

  private readonly sql: ReturnType<typeof decisionStatements>;

  /** @param listening the store's LISTEN connection (on this channel among others) */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly listening: SharedListen,
  ) {
    this.sql = decisionStatements(db.table);
    this.channel = db.channel();
  }

  async submitDecisions(submission: DecisionSubmission): Promise<void> {
    const { key, runId, decisions, at } = submission;
    checkedSessionId(key);
    const value = SubmissionSchema.parse({ runId, decisions, at });
    await this.db.query('submit decisions', key, () => this.sql.submit, [
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
    }>('read submitted decisions', {}, () => this.sql.submitted, [query.limit]);
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
    await this.db.query('drop submitted decisions', entry.key, () => this.sql.drop, [
      keys.ownerPart(entry.key.userId),
      entry.key.sessionId,
      entry.id,
    ]);
  }

  watchDecisions(
    onSubmitted: () => void,
    onLost: (error: unknown) => void,
  ): Promise<DecisionWatch & SharedWatch> {
    return this.listening.watch((channel) => {
      if (channel === this.channel) onSubmitted();
    }, onLost);
  }
}
