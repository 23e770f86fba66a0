export type { RunActionOptions } from './run-options.js';
export { sendMessage } from './send-message.js';
export { continueRun, type ContinueRunOptions } from './continue-run.js';
export { cancelRun } from './cancel-run.js';
export {
  resumeSession,
  suspendSession,
  completeSession,
  failSession,
  clearSession,
} from './lifecycle-actions.js';
export {
  changeModel,
  changeBudget,
  changeSystemPrompt,
  writeMetadata,
  updateTask,
} from './config-actions.js';
export { forkSession, type ForkSessionOptions } from './fork-session.js';
export { deleteSession, type DeleteSessionOptions } from './delete-session.js';
