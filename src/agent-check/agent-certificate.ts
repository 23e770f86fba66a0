/**
 * The certificate `checkAgent` gives: what an agent can reach, read from its run chart. Plain
 * JSON in a stable order and without times, so that a committed `cert.json` diffs cleanly.
 */
import type { OnInterrupted } from '../tools/in-doubt.js';

/** The format version a certificate is written in (`parseCertificate` reads up to it). */
export const CERTIFICATE_VERSION = 1;

/**
 * Whether a tool's call waits for a human: `always` (`needsApproval: true`, or `permissions`
 * with it), `conditional` (`needsApproval` a function of the arguments, or a `permissions`
 * policy that may ask: some calls run without approval), `never`.
 */
export type ApprovalRule = 'always' | 'conditional' | 'never';

/**
 * What a tool is: the app's own (`tool`), a sub-agent's (`agent.asTool`), a handoff's
 * (`transfer_to_<name>`) or a memory tool the runtime adds (`memory`).
 */
export type ToolKind = 'tool' | 'sub-agent' | 'handoff' | 'memory';

/** One tool an agent can reach, at one agent path. */
export interface ReachableTool {
  /** The agents from the checked one down to the one whose model calls the tool. */
  agentPath: string[];
  tool: string;
  kind: ToolKind;
  approval: ApprovalRule;
  /** What asks for the approval: `needsApproval`, `permissions of <agent>`. */
  askedBy: string[];
  /** The source text of a `needsApproval` function (what decides a conditional approval). */
  condition?: string | undefined;
  /**
   * The approvals every path to the tool's execution passes (`<agent path>: <tool>`): its
   * own when `always`, a sub-agent tool's that leads to it, ...
   */
  gates: string[];
  /** Whether some path reaches its execution with no approval at all. */
  withoutApproval: boolean;
  /**
   * The shortest path of the run chart to its execution (through no approval when
   * `withoutApproval`): the model's and the human's choices, each with its agent.
   */
  witness: string[];
  idempotent: boolean;
  /** What a restored run does with a call of it in flight at a crash. */
  onInterrupted: OnInterrupted;
  /** Whether it has a `reconcile` that looks up the effect of a call in doubt. */
  reconcile: boolean;
}

/** A tool whose effect is neither idempotent nor reconcilable: a crash leaves a call in doubt. */
export interface InDoubtRisk {
  agentPath: string[];
  tool: string;
  onInterrupted: OnInterrupted;
  /** What happens to a call in doubt of it. */
  meaning: string;
}

/** A loop of the chart and what bounds it. */
export interface AgentLoop {
  /**
   * `turns`: a run's model and tool steps; `handoff-cycle`: agents handing the run back and
   * forth; `sub-agent-recursion`: an agent reached again through sub-agent tools.
   */
  kind: 'turns' | 'handoff-cycle' | 'sub-agent-recursion';
  /** The run's agent path where the loop is (for a cycle, where it starts). */
  agentPath: string[];
  /** The agents of a cycle, the first one again at the end (a `turns` loop: its one agent). */
  cycle: string[];
  /** The option that bounds it, its value, and whether that is the default; `null`: no bound. */
  bound: LoopBound | null;
}

/** The bound of a loop. */
export interface LoopBound {
  option: 'maxTurns' | 'maxSubAgentDepth';
  value: number;
  isDefault: boolean;
}

/** A toolkit whose tools are known only once a session creates it (an MCP server, ...). */
export interface OpaqueSource {
  agentPath: string[];
  toolkit: string;
}

/** One agent of the checked tree, as a run reaches it. */
export interface CheckedAgent {
  agentPath: string[];
  /** How a run gets there: the checked agent itself, a sub-agent tool or a handoff. */
  via: 'root' | 'sub-agent' | 'handoff';
  inputGuardrails: string[];
  outputGuardrails: string[];
  /** Whether it has its own `permissions` policy. */
  permissions: boolean;
}

/** What an agent can reach without and through approvals, its in-doubt risks and its loops. */
export interface AgentCertificate {
  version: typeof CERTIFICATE_VERSION;
  /** The checked agent's name. */
  agent: string;
  /** How deep sub-agent runs were followed (the agent's `maxSubAgentDepth`, or `maxDepth`). */
  maxSubAgentDepth: number;
  agents: CheckedAgent[];
  /** One per (agent path, tool), sorted by agent path then tool. */
  tools: ReachableTool[];
  risks: {
    inDoubt: InDoubtRisk[];
    loops: AgentLoop[];
    opaque: OpaqueSource[];
  };
}
