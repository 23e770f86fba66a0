/**
 * Agents over the A2A protocol (with the official `@a2a-js/sdk`, an optional peer): a remote
 * A2A agent as a local sub-agent, durable across crashes (`remoteAgent`). A subpath of its
 * own so the root import never loads the SDK.
 */
export { remoteAgent, type RemoteAgentOptions } from './a2a/remote-agent.js';
export type { RemoteApproval, RemoteDecision, RemoteUsage } from './a2a/a2a-convention.js';
