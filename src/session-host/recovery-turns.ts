/**
 * One runtime's queue of restored steps (see docs/operations/recovery.md, "Which run a crash is
 * charged to"): the steps a restore finds in flight were open in a process that died, and
 * any of them may be what killed it, so a session's restored steps run only while it holds
 * the runtime's one turn; the others wait, first come first served. A crash while a session
 * holds the turn is charged to its steps only: the steps waiting did not run, so it is not
 * theirs. A session's steps share its turn (it is given back when the last of them ends);
 * fresh steps never wait.
 */
export class RecoveryTurns {
  private holder: object | undefined;
  private readonly waiting: { owner: object; go: () => void }[] = [];

  /**
   * Resolves once `owner` holds the turn (at once if it holds it or no one does). `queued`
   * is called when it has to wait. Rejects with `signal`'s reason if it is aborted first.
   */
  take(owner: object, signal: AbortSignal | undefined, queued: () => void): Promise<void> {
    signal?.throwIfAborted();
    if (this.holder === undefined || this.holder === owner) {
      this.holder = owner;
      return Promise.resolve();
    }
    queued();
    return new Promise<void>((resolve, reject) => {
      const entry = {
        owner,
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Gives the turn up (if `owner` holds it) to the first waiting, or stops `owner` waiting. */
  release(owner: object): void {
    if (this.holder !== owner) {
      const at = this.waiting.findIndex((w) => w.owner === owner);
      if (at >= 0) this.waiting.splice(at, 1);
      return;
    }
    const next = this.waiting[0];
    this.holder = next?.owner;
    // Every step of the session that takes the turn goes on with it.
    for (const w of this.waiting.filter((w) => w.owner === next?.owner)) {
      this.waiting.splice(this.waiting.indexOf(w), 1);
      w.go();
    }
  }
}
