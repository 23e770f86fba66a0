import { z } from 'zod';
import { InvalidCertificateError } from '../errors/certificate-errors.js';
import { CERTIFICATE_VERSION, type AgentCertificate } from './agent-certificate.js';

const Path = z.array(z.string());
const OnInterrupted = z.enum(['retry', 'ask', 'fail']);
const Bound = z.strictObject({
  option: z.enum(['maxTurns', 'maxSubAgentDepth']),
  value: z.number().int().positive(),
  isDefault: z.boolean(),
});

/** The shape of an agent certificate file (what `checkAgent` writes). */
const Certificate = z.strictObject({
  version: z.literal(CERTIFICATE_VERSION),
  agent: z.string(),
  maxSubAgentDepth: z.number().int().positive(),
  agents: z.array(
    z.strictObject({
      agentPath: Path,
      via: z.enum(['root', 'sub-agent', 'handoff']),
      inputGuardrails: z.array(z.string()),
      outputGuardrails: z.array(z.string()),
      permissions: z.boolean(),
    }),
  ),
  tools: z.array(
    z.strictObject({
      agentPath: Path,
      tool: z.string(),
      kind: z.enum(['tool', 'sub-agent', 'handoff', 'memory']),
      approval: z.enum(['always', 'conditional', 'never']),
      askedBy: z.array(z.string()),
      condition: z.string().optional(),
      gates: z.array(z.string()),
      withoutApproval: z.boolean(),
      witness: z.array(z.string()),
      idempotent: z.boolean(),
      onInterrupted: OnInterrupted,
      reconcile: z.boolean(),
    }),
  ),
  risks: z.strictObject({
    inDoubt: z.array(
      z.strictObject({
        agentPath: Path,
        tool: z.string(),
        onInterrupted: OnInterrupted,
        meaning: z.string(),
      }),
    ),
    loops: z.array(
      z.strictObject({
        kind: z.enum(['turns', 'handoff-cycle', 'sub-agent-recursion']),
        agentPath: Path,
        cycle: Path,
        bound: Bound.nullable(),
      }),
    ),
    opaque: z.array(z.strictObject({ agentPath: Path, toolkit: z.string() })),
  }),
});

/**
 * Reads an agent certificate (a `cert.json` written from `checkAgent`), checked field by field.
 * @throws InvalidCertificateError naming the first problem: not JSON, a missing or mistyped
 *   field (`.path`, e.g. `tools.2.approval`), another format version.
 */
export function parseCertificate(text: string): AgentCertificate {
  if (typeof text !== 'string') {
    throw new TypeError('parseCertificate(): text must be a string (the JSON of a certificate)');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidCertificateError('', `not JSON (${(error as Error).message})`);
  }
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > CERTIFICATE_VERSION) {
    throw new InvalidCertificateError(
      'version',
      `format version ${version} is newer than this agentstate reads (${CERTIFICATE_VERSION})`,
    );
  }
  const parsed = Certificate.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InvalidCertificateError(issue.path.join('.'), issue.message);
}
