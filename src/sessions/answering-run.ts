import { answeringRun } from '../machines/answered-messages.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { cacheKey } from '../session-host/session-cache.js';
import type { SessionEventHub } from '../session-host/session-events.js';

/**
 * The run that answers `messageId` in the session whose run this process executes (`ended`:
 * when that run stops executing). Its first save names it, which may not have happened yet
 * (the run may still be loading the session): waited for. `undefined` when the run stopped
 * without a save naming it (it failed before storing the message, so it was not answered).
 */
export async function answeringRunHere(
  parts: { store: SessionStore; hub: SessionEventHub },
  key: SessionKey,
  messageId: string,
  ended: Promise<void>,
): Promise<string | undefined> {
  const executing = cacheKey(key);
  let stop = (): void => undefined;
  const saved = new Promise<string>((resolve) => {
    stop = parts.hub.on('SessionSaved', (e) => {
      if (cacheKey(e.key) !== executing) return;
      const runId = answeringRun(e.record.snapshot, messageId);
      if (runId !== undefined) resolve(runId);
    });
  });
  try {
    const stored = await parts.store.load(key).then(
      (record) => answeringRun(record.snapshot, messageId),
      () => undefined, // not created yet: its run's first save creates it
    );
    if (stored !== undefined) return stored;
    return await Promise.race([saved, ended.then(() => undefined)]);
  } finally {
    stop();
  }
}
