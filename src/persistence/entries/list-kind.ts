import type { ListSessionsQuery, SessionInfo } from '../session-store.js';

/**
 * The kinds of record a store lists apart (`ListSessionsQuery.kind`): sessions, and the
 * instances of hosted app machines (`workflows()`), which are records whose `workflow` field is
 * set. Each kind has its own listing and list-order index in every store, so a page of one kind
 * never holds, nor reads through, records of the other.
 */
export const LIST_KINDS = ['session', 'workflow'] as const satisfies readonly NonNullable<
  ListSessionsQuery['kind']
>[];

/** A kind of record a store lists (`'session'` or `'workflow'`). */
export type ListKind = (typeof LIST_KINDS)[number];

/** The kind a record is listed as: a workflow instance when its `workflow` field is set. */
export function kindOf(info: Pick<SessionInfo, 'workflow'>): ListKind {
  return info.workflow === undefined ? 'session' : 'workflow';
}

/** A listing query's kind, checked: omitted means `'session'`; anything else is a `TypeError`. */
export function checkListKind(kind: unknown): ListKind {
  if (kind === undefined) return 'session';
  if (!(LIST_KINDS as readonly unknown[]).includes(kind)) {
    throw new TypeError(
      `list: kind must be one of ${LIST_KINDS.join(', ')}, got ${JSON.stringify(kind)}`,
    );
  }
  return kind as ListKind;
}
