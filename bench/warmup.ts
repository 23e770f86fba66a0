import { join } from 'node:path';
import { benchAgent, openRecordedStore, tempDir, userMessage } from './fixtures.js';
import { bareRuns, replayBatches } from './floors.js';

/**
 * Warms V8 up before anything is measured, in its own store: one conversation of `messages`
 * messages, then the same number spread over 20 sessions, 10 in flight, and the floors.
 */
export async function warmUp(messages: number): Promise<void> {
  const dir = await tempDir('agentstate-warmup-');
  const { store, batches } = await openRecordedStore(join(dir.path, 'db'));
  try {
    const agent = benchAgent();
    for (let i = 0; i < messages; i++) {
      await agent.run(userMessage(i), { sessionId: 'warm-long', userId: 'warm', store });
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < messages) {
        const i = next++;
        await agent.run(userMessage(i), {
          sessionId: `warm-${i % 20}`,
          userId: `warm-${i % 20}`,
          store,
        });
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
  } finally {
    await store.close();
    await dir.cleanup();
  }
  await replayBatches(batches);
  await bareRuns(messages);
}
