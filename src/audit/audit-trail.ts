import type { SessionLog, StepAuditor } from '../actors/session-log.js';
import type { ApprovalCheckOutput, ToolCallOutput } from '../machines/step-actor-io.js';
import type { CallState } from '../machines/run-types.js';
import { agentPathOf } from '../machines/agent-path.js';
import type { AuditEntry, AuditVia } from '../persistence/audit-log.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import { storedRun } from '../runs/stored-run.js';
import { monotonicIds } from '../core/new-id.js';
import { runChain, type RunNode } from '../runs/run-tree.js';

/** The fields of an entry its writer chooses (the session, id and redaction are filled in). */
export type AuditFields = Omit<AuditEntry, 'id' | 'userId' | 'sessionId' | 'at' | 'runId'> & {
  runId?: string | undefined;
  at?: number | undefined;
};

/**
 * Builds the audit entries of one session: every entry carries the session's owner and id,
 * a fresh ULID and its summary passed through the agent's `redact` (nothing unredacted is
 * stored). Tool arguments never enter an entry.
 */
export class AuditTrail {
  /** Ids in write order, so entries of one action sort as they were made within a millisecond. */
  private readonly newId = monotonicIds();

  constructor(
    private readonly key: SessionKey,
    private readonly now: () => number,
    private readonly redact: ((text: string) => string) | undefined,
  ) {}

  entry(fields: AuditFields): AuditEntry {
    const { at, runId, summary, ...rest } = fields;
    return {
      id: this.newId(),
      userId: this.key.userId,
      sessionId: this.key.sessionId,
      runId,
      at: at ?? this.now(),
      ...rest,
      summary: this.redact ? this.redact(summary) : summary,
      ...(rest.by !== undefined && this.redact ? { by: this.redact(rest.by) } : {}),
    };
  }

  /**
   * Makes the steps of a loaded session record their entries, and queues the action's own
   * entry for its first save (an action that changes nothing writes none).
   */
  attach(
    host: { log: SessionLog; runSnapshot(): RunNode | undefined },
    action: { name: string; auditSummary?: string | undefined },
    record: SessionRecord,
  ): void {
    host.log.auditor = this.steps(() => host.runSnapshot());
    const runId = storedRun<{ context?: { runId?: string } }>(record.snapshot)?.context?.runId;
    host.log.audit([this.action(action.name, action.auditSummary, runId)]);
  }

  /** A session action (`create`, `sendMessage`, `changeBudget`, ...). */
  action(action: string, summary: string = action, runId?: string): AuditEntry {
    return this.entry({ kind: 'session', action, summary, runId });
  }

  /** A human's approval or rejection of a pending call. */
  decision(
    run: RunNode | undefined,
    d: { callId: string; approve: boolean; runId?: string | undefined; always?: boolean },
    who: { by?: string | undefined; via?: AuditVia | undefined },
  ): AuditEntry {
    const runId = d.runId ?? run?.context?.runId;
    const ctx = runId === undefined ? undefined : runChain(run, runId).at(-1)?.context;
    const call = ctx?.calls.find((c) => c.callId === d.callId);
    const tool = call?.name ?? 'unknown tool';
    const verb = d.approve ? 'approved' : 'rejected';
    return this.entry({
      kind: d.approve ? 'approval' : 'rejection',
      runId,
      tool,
      callId: d.callId,
      ...(ctx ? { agentPath: agentPathOf(ctx) } : {}),
      summary: `${tool} ${verb}${d.always ? ' (always)' : ''}${who.by ? ` by ${who.by}` : ''}`,
      ...(who.by === undefined ? {} : { by: who.by }),
      via: who.via ?? 'api',
    });
  }

  /** An operator's resolution of a call in doubt (`agent.resolveInDoubt`). */
  inDoubt(
    run: RunNode | undefined,
    r: { callId: string; action: string; runId: string },
    who: { by?: string | undefined; via?: AuditVia | undefined },
  ): AuditEntry {
    const ctx = runChain(run, r.runId).at(-1)?.context;
    const tool = ctx?.calls.find((c) => c.callId === r.callId)?.name ?? 'unknown tool';
    const what = { retry: 'to run again', result: 'with a result given', fail: 'as failed' };
    const verb = what[r.action as keyof typeof what] ?? r.action;
    return this.entry({
      kind: 'in_doubt',
      runId: r.runId,
      tool,
      callId: r.callId,
      ...(ctx ? { agentPath: agentPathOf(ctx) } : {}),
      summary: `${tool} in doubt resolved ${verb}${who.by ? ` by ${who.by}` : ''}`,
      ...(who.by === undefined ? {} : { by: who.by }),
      via: who.via ?? 'api',
    });
  }

  /**
   * The entries a journaled step records, read off the run it belongs to: a permission
   * decision per checked call (`denial` for a deny), a `rejection` for a call rejected by its
   * approval deadline or by a standing `always` rejection, and a `tool_call` per finished call
   * with its permission decision and whether it ran.
   */
  steps(run: () => RunNode | undefined): StepAuditor {
    return (journal) => {
      if (journal.kind === 'model') return [];
      const ctx = runChain(run(), journal.runId).at(-1)?.context;
      if (!ctx) return [];
      const at = journal.at;
      const base = { runId: journal.runId, at, agentPath: agentPathOf(ctx) };
      const callAt = (step: number | undefined): CallState | undefined =>
        ctx.calls.find((c) => c.step === step);
      if (journal.kind === 'approval') {
        return (journal.output as ApprovalCheckOutput).decisions.flatMap((d) => {
          if (d.permission === undefined) return [];
          const tool = callAt(d.step)?.name ?? 'unknown tool';
          const denied = d.permission === 'deny';
          return [
            this.entry({
              ...base,
              kind: denied ? 'denial' : 'permission',
              tool,
              callId: d.callId,
              permission: d.permission,
              summary: denied
                ? `${tool} denied: ${d.denyReason ?? 'no reason given'}`
                : `${tool} permission: ${d.permission}`,
            }),
          ];
        });
      }
      const out = journal.output as ToolCallOutput;
      const call = callAt(journal.step);
      const tool = call?.name ?? out.result?.name ?? 'unknown tool';
      const ran = call?.decision !== 'rejected';
      return [
        // A rejection no human made now (a deadline passed, or a standing `always` rejection
        // decided it) has its entry here, in the batch of the step that records the call.
        ...(call && !ran && (call.reason === 'timeout' || call.reason === 'always')
          ? [
              this.entry({
                ...base,
                kind: 'rejection',
                tool,
                callId: out.callId,
                summary:
                  call.reason === 'timeout'
                    ? `${tool} rejected: its approval deadline passed`
                    : `${tool} rejected (always)`,
              }),
            ]
          : []),
        this.entry({
          ...base,
          kind: 'tool_call',
          tool,
          callId: out.callId,
          ...(call?.permission ? { permission: call.permission } : {}),
          summary: ran
            ? `${tool} ran${out.isError ? ' (error)' : ''}`
            : `${tool} did not run: ${call.reason ?? 'user'}`,
        }),
      ];
    };
  }
}
