/**
 * The memory of a run's scope as a tool sees it (`ToolExecuteOptions.memory`): the agent's
 * working memory and its user's memories across sessions. Present in the tools of an agent
 * with `memory` (`AgentOptions.memory`) in a session's run.
 */
export interface ToolMemory {
  /** Whose memory: the run's user and resource. */
  readonly scope: { readonly userId?: string | undefined; readonly resource?: string | undefined };
  /** The scope's working memory (`undefined`: none written yet). */
  workingMemory(): Promise<{ content: unknown; version: number; updatedAt: number } | undefined>;
  /**
   * Applies a patch to the working memory: for free text `{ append?, replace?: [{ find, with }] }`,
   * for a schema `{ set: { field: value } }` merged into the document. Applied once per `opId`
   * (use the call id), re-applied over a concurrent writer's update so none is lost;
   * `InvalidWorkingMemoryError` when it breaks the schema or cannot apply.
   */
  updateWorkingMemory(
    patch: unknown,
    options: { opId: string },
  ): Promise<{ content: unknown; version: number; applied: boolean }>;
  /** Saves a fact (embedded and kept under `id`, once). */
  remember(text: string, options: { id: string }): Promise<{ id: string }>;
  /** The scope's memories most similar to `text`, best first. */
  search(
    text: string,
    options?: { topK?: number | undefined; minScore?: number | undefined },
  ): Promise<
    { id: string; text: string; score: number; sessionId?: string | undefined; at: number }[]
  >;
}
