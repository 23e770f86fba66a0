import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { typeCheckEdited, type SourceEdit } from '../helpers/typecheck-blocks.js';

/**
 * What is stored is defined once (issue 41): each stored type is derived from its zod schema or
 * tied to it (`src/machines/stored-shapes.ts`, and the store's records beside their schemas in
 * `src/persistence/session-schemas.ts`), so a field changed on one side only fails to compile. Each case below changes one side of one pair in memory (the files on disk stay as
 * they are) and expects the compiler's error on the tie, naming the field.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TIES = ['src/machines/stored-shapes.ts', 'src/persistence/session-schemas.ts'];

interface OneSided {
  /** What changes, on which side. */
  what: string;
  edit: SourceEdit;
  /** What the compiler's error on the tie says. */
  error: string;
}

const ONE_SIDED: OneSided[] = [
  {
    what: 'a field added to a type (CallState)',
    edit: {
      file: 'src/machines/run-types.ts',
      find: '  done: boolean;\n',
      replace: '  done: boolean;\n  note?: string | undefined;\n',
    },
    error: '"note: only in the type"',
  },
  {
    what: "a field removed from a schema (a session's settings)",
    edit: {
      file: 'src/machines/schemas/persisted-snapshot-schema.ts',
      find: '    systemPrompt: z.string().optional(),\n',
      replace: '',
    },
    error: '"systemPrompt: only in the type"',
  },
  {
    what: "a nested field's type changed in a type of a lower layer (SerializedError)",
    edit: {
      file: 'src/errors/agentstate-error.ts',
      find: '        step: number;\n',
      replace: '        step: string;\n',
    },
    error: '"failedStep.step: a value of the type does not fit the schema"',
  },
  {
    what: 'a field made optional in a schema (a stored record)',
    edit: {
      file: 'src/persistence/session-schemas.ts',
      find: '    historyLength: z.number().int().nonnegative(),\n',
      replace: '    historyLength: z.number().int().nonnegative().optional(),\n',
    },
    error: '"historyLength: optional on one side only"',
  },
  {
    what: "a field removed from a store's record type (a journal entry)",
    edit: {
      file: 'src/persistence/session-store.ts',
      find: '  retries?: number | undefined;\n',
      replace: '',
    },
    error: '"retries: only in the schema"',
  },
  {
    what: "a value added to a union of a type (an approval check's permission)",
    edit: {
      file: 'src/machines/step-actor-io.ts',
      find: "    permission?: 'allow' | 'ask' | 'deny' | undefined;\n",
      replace: "    permission?: 'allow' | 'ask' | 'deny' | 'later' | undefined;\n",
    },
    error: '"decisions[].permission: a value of the type does not fit the schema"',
  },
  {
    what: 'a key that may be undefined made always defined (a run usage)',
    edit: {
      file: 'src/machines/run-usage.ts',
      find: '  costUsd: number | undefined;\n',
      replace: '  costUsd: number;\n',
    },
    error: '"costUsd: optional on one side only"',
  },
  {
    what: 'a field added to a journaled step output schema (a tool call)',
    edit: {
      file: 'src/machines/schemas/step-output-by-kind.ts',
      find: '    rejected: z.literal(true).optional(),\n',
      replace: '    rejected: z.literal(true).optional(),\n    retried: z.boolean().optional(),\n',
    },
    error: '"retried: only in the schema"',
  },
  {
    what: "a field's type narrowed in a store's record type (an audit entry)",
    edit: {
      file: 'src/persistence/audit-log.ts',
      find: '  via?: AuditVia | undefined;\n',
      replace: "  via?: 'api' | undefined;\n",
    },
    error: '"via: a value of the schema does not fit the type"',
  },
];

describe('the stored shapes', () => {
  it('are tied: the ties compile as the code stands, and not with a field changed on one side', () => {
    // The code as it stands, then one program with every one-sided change: each names its
    // field in an error of its own (each case's error is on a tie no other case changes: the
    // compiler names one difference a tie).
    const [asItStands, changed] = typeCheckEdited(ROOT, TIES, [[], ONE_SIDED.map((c) => c.edit)]);
    expect(asItStands).toEqual([]);
    const errors = (changed ?? []).join('\n');
    for (const change of ONE_SIDED) {
      expect(errors, change.what).toContain(change.error);
    }
  });

  it('refuses an edit that does not apply, so no case passes by changing nothing', () => {
    expect(() =>
      typeCheckEdited(ROOT, TIES, [
        [{ file: 'src/machines/run-types.ts', find: 'no such text', replace: '' }],
      ]),
    ).toThrow(/does not hold/);
  });
});
