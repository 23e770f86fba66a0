/** A sub-agent run's events carry its agent path (top-level agent first). */
type Tagged = { agentPath?: string[] | undefined };

/** Progress the step actors report while they work (for `agent.stream`). */
export type StepProgress = Tagged &
  (
    | { type: 'text_delta'; runId: string; delta: string }
    | { type: 'tool_call_started'; runId: string; callId: string; name: string; arguments: string }
    | {
        type: 'tool_call_finished';
        runId: string;
        callId: string;
        name: string;
        output: string;
        isError: boolean;
      }
  );
