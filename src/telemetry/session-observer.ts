/* eslint-disable max-lines -- Long on purpose: one class, the telemetry of one loaded session. Its
 * spans, metrics and log lines share the map of runs open here and their RunContexts, so they stay
 * together; what each span records is built in run-, chat- and tool-attributes.ts.
 */
import type { Attributes, Context, Span, SpanKind } from '@opentelemetry/api';
import type { RunContext } from '../core/run-context.js';
import { withRunContext } from '../core/run-context-storage.js';
import type { TraceCarrier } from '../machines/run-types.js';
import { AGENTSTATE, GEN_AI, OPERATION } from './gen-ai-attributes.js';
import type { LogEvent, LogLevel } from './logger.js';
import type { Observability, OtelModule } from './observability.js';
import { carrierOf, contextOf } from './trace-carrier.js';
import { errorType, messageOf } from './error-type.js';
import {
  runAttributes,
  runEndAttributes,
  scopeAttributes,
  type ObservedRun,
  type RunEnding,
  type RunStart,
} from './run-attributes.js';
import { chatAttributes, type ChatCall, type ChatAnswer } from './chat-attributes.js';
import { toolAttributes, toolResultAttributes, type ToolCallInfo } from './tool-attributes.js';

interface OpenRun {
  span: Span;
  /** The OpenTelemetry context whose active span is the run's (its steps' parent). */
  context: Context;
}

/**
 * The telemetry of one loaded session: an `invoke_agent` span per run while it runs in this
 * process (a sub-agent's nested in its parent's; a resumed run's a child of its stored trace
 * context), a `chat` span and the GenAI histograms per model call, an `execute_tool` span per
 * tool call, and the log lines. Spans start and end inside the run's RunContext. With no SDK
 * registered (spans not recording) and no logger, every method returns after a check.
 */
export class SessionObserver {
  private readonly runs = new Map<string, OpenRun | undefined>();
  /** The calls whose deadline was logged (made when the first is). */
  private deadlines: Set<string> | undefined;
  /**
   * Each run's RunContext when it started here (a finished sub-agent leaves the tree); kept
   * only while something can record (a tracer or meter loaded, or a logger): with nothing, no
   * span, metric or line ever asks for it.
   */
  private contexts: Map<string, RunContext> | undefined;

  constructor(
    private readonly shared: Observability,
    private readonly version: number,
    private readonly lookup: (runId: string) => RunContext,
  ) {}

  private contextFor(runId: string): RunContext {
    return this.contexts?.get(runId) ?? this.lookup(runId);
  }

  /** Whether log lines are written (callers skip work that only feeds them). */
  get logging(): boolean {
    return this.shared.log !== undefined;
  }

  /**
   * A run starts, or is restored, in this process: its span starts (once). Returns the trace
   * context to store with a new run, when a recording span has one.
   */
  startRun(run: ObservedRun, how: RunStart = {}): TraceCarrier | undefined {
    if (this.runs.has(run.runId)) return undefined;
    const ctx = this.lookup(run.runId);
    if (this.shared.otel || this.logging) (this.contexts ??= new Map()).set(run.runId, ctx);
    const path = run.agentPath ? { agentPath: run.agentPath } : {};
    if (how.restored) {
      this.log('info', 'run.restore', ctx, path);
      if (how.restarted) this.log('warn', 'run.restart', ctx, path);
    } else this.log('info', 'run.start', ctx, { agent: run.agentName, ...path });
    const { tracer, otel } = this.shared;
    if (!tracer || !otel) {
      this.runs.set(run.runId, undefined);
      return undefined;
    }
    const parent = how.parentRunId === undefined ? undefined : this.runs.get(how.parentRunId);
    const parentContext =
      parent?.context ?? (run.trace ? contextOf(otel, run.trace) : otel.context.active());
    const attributes = runAttributes(run, how, ctx, this.version);
    const span = withRunContext(ctx, () =>
      tracer.startSpan(
        `${OPERATION.invokeAgent} ${run.agentName}`,
        { kind: otel.SpanKind.INTERNAL, attributes },
        parentContext,
      ),
    );
    if (!span.isRecording()) {
      this.runs.set(run.runId, undefined);
      return undefined;
    }
    this.runs.set(run.runId, { span, context: otel.trace.setSpan(parentContext, span) });
    return how.restored || run.trace ? undefined : carrierOf(otel, span.spanContext());
  }

  /** A run finished, or its stay here ends (paused, or the session closes): its span ends. */
  endRun(runId: string, ending: RunEnding): void {
    const open = this.runs.get(runId);
    if (!this.runs.delete(runId)) return; // not started here, or already ended
    if (!open && !this.logging) return; // nothing records: the cheap path
    const ctx = this.contextFor(runId);
    const final = ['completed', 'failed', 'cancelled'].includes(ending.status);
    const error = ending.error ? { code: ending.error.code, message: ending.error.message } : {};
    this.log(ending.status === 'failed' ? 'warn' : 'info', final ? 'run.end' : 'run.pause', ctx, {
      status: ending.status,
      ...(ending.interruption ? { interruption: ending.interruption } : {}),
      turns: ending.turn,
      ...(ending.error ? { error } : {}),
    });
    if (!open) return;
    const { span } = open;
    withRunContext(ctx, () => {
      span.setAttributes(runEndAttributes(ending));
      if (ending.error) {
        span.setAttribute(GEN_AI.errorType, ending.error.code);
        span.setStatus({
          code: this.api.SpanStatusCode.ERROR,
          message: this.redacted(ending.error.message),
        });
      }
      span.end();
    });
  }

  /** Ends the spans still open (runs left in flight when the session closes). */
  close(): void {
    for (const [runId, open] of this.runs) {
      if (!open) continue;
      withRunContext(this.contextFor(runId), () => {
        open.span.setAttribute(AGENTSTATE.runStatus, 'running');
        open.span.end();
      });
    }
    this.runs.clear();
  }

  /**
   * One model call: a `chat` span (when its run's span records) and the GenAI histograms. When
   * nothing records, `fn()` itself: no wrapper stays suspended while the model answers.
   */
  chat<T extends ChatAnswer>(
    runId: string,
    call: ChatCall,
    fn: (trace?: TraceCarrier) => Promise<T>,
  ): Promise<T> {
    const open = this.runs.get(runId);
    return !open && !this.shared.metrics ? fn() : this.recordChat(runId, open, call, fn);
  }

  private async recordChat<T extends ChatAnswer>(
    runId: string,
    open: OpenRun | undefined,
    call: ChatCall,
    fn: (trace?: TraceCarrier) => Promise<T>,
  ): Promise<T> {
    const { metrics, otel } = this.shared;
    const ctx = this.contextFor(runId);
    const started = performance.now();
    const span = open
      ? this.startStep(open, ctx, `${OPERATION.chat} ${call.model}`, this.api.SpanKind.CLIENT, {
          ...chatAttributes(call, undefined, this.content()),
          ...scopeAttributes(ctx),
        })
      : undefined;
    const base: Attributes = {
      [GEN_AI.operationName]: OPERATION.chat,
      [GEN_AI.providerName]: call.provider,
      [GEN_AI.requestModel]: call.model,
    };
    try {
      // The span's trace context goes with the call (an A2A adapter sends it on as headers).
      const answer = await fn(span && otel ? carrierOf(otel, span.spanContext()) : undefined);
      metrics?.record(
        { ...base, [GEN_AI.responseModel]: answer.model },
        (performance.now() - started) / 1000,
        answer.usage,
      );
      if (span) {
        withRunContext(ctx, () => {
          span.setAttributes(chatAttributes(call, answer, this.content()));
          span.end();
        });
      }
      return answer;
    } catch (error) {
      const type = errorType(error);
      metrics?.record({ ...base, [GEN_AI.errorType]: type }, (performance.now() - started) / 1000);
      if (span) this.failStep(span, ctx, type, error);
      throw error;
    }
  }

  /**
   * One tool call: an `execute_tool` span, active while the tool runs (else `fn()` itself). A
   * rejected call (it never runs) has one too, with `error.type` `rejected` and the approval
   * decision and reason.
   */
  tool<T extends { output: string; isError?: boolean | undefined }>(
    runId: string,
    call: ToolCallInfo,
    fn: () => Promise<T>,
  ): Promise<T> {
    const open = this.runs.get(runId);
    return open ? this.recordTool(open, runId, call, fn) : fn();
  }

  private async recordTool<T extends { output: string; isError?: boolean | undefined }>(
    open: OpenRun,
    runId: string,
    call: ToolCallInfo,
    fn: () => Promise<T>,
  ): Promise<T> {
    const ctx = this.contextFor(runId);
    const otel = this.api;
    const span = this.startStep(
      open,
      ctx,
      `${OPERATION.executeTool} ${call.name}`,
      otel.SpanKind.INTERNAL,
      {
        ...toolAttributes(call, this.content()),
        ...scopeAttributes(ctx),
      },
    );
    try {
      const result = await otel.context.with(otel.trace.setSpan(open.context, span), fn);
      withRunContext(ctx, () => {
        span.setAttributes(toolResultAttributes(result, this.content()));
        // A call rejected before it ran (by a human, a permission denial or its deadline).
        const type = call.decision === 'rejected' ? 'rejected' : 'tool_error';
        if (result.isError) span.setAttribute(GEN_AI.errorType, type);
        if (result.isError) span.setStatus({ code: otel.SpanStatusCode.ERROR });
        span.end();
      });
      return result;
    } catch (error) {
      this.failStep(span, ctx, errorType(error), error);
      throw error;
    }
  }

  /** A pending approval passed its deadline and was rejected (logged once per call). */
  deadline(runId: string, callId: string, tool: string): void {
    const key = `${runId}/${callId}`;
    if (!this.logging || this.deadlines?.has(key)) return;
    (this.deadlines ??= new Set()).add(key);
    this.log('info', 'run.deadline', this.contextFor(runId), { callId, tool });
  }

  /** A run interrupted by a failed model call calls the model again. */
  retry(runId: string): void {
    if (this.logging) this.log('info', 'run.retry', this.contextFor(runId));
  }

  /**
   * A step restored in flight waits: another session's restored steps hold the runtime's
   * recovery turn (see session-host/recovery-turns.ts).
   */
  recoveryQueued(ctx: RunContext, fields: Record<string, unknown>): void {
    this.log('info', 'run.recovery_queued', ctx, fields);
  }

  /** A run's step was in flight at more crashes than `maxRecoveries`: the run is stopped. */
  recoveryExhausted(ctx: RunContext, fields: Record<string, unknown>): void {
    this.log('error', 'run.recovery_exhausted', ctx, fields);
  }

  /** A save lost the optimistic version check. */
  conflict(ctx: RunContext, fields: Record<string, unknown>): void {
    this.log('warn', 'session.conflict', ctx, fields);
  }

  /** The API module: loaded whenever a run here has a span (spans start only with a tracer). */
  private get api(): OtelModule {
    const { otel } = this.shared;
    if (!otel) throw new Error('@opentelemetry/api is not loaded, yet a span is open');
    return otel;
  }

  private log(
    level: LogLevel,
    event: LogEvent,
    ctx: RunContext,
    fields?: Record<string, unknown>,
  ): void {
    this.shared.log?.write(level, event, ctx, fields);
  }

  private startStep(
    open: OpenRun,
    ctx: RunContext,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
  ): Span {
    const { tracer } = this.shared;
    return withRunContext(ctx, () => tracer!.startSpan(name, { kind, attributes }, open.context));
  }

  private failStep(span: Span, ctx: RunContext, type: string, error: unknown): void {
    withRunContext(ctx, () => {
      span.setAttribute(GEN_AI.errorType, type);
      span.setStatus({
        code: this.api.SpanStatusCode.ERROR,
        message: this.redacted(messageOf(error)),
      });
      span.end();
    });
  }

  /** How content is recorded: not at all, or redacted. */
  private content(): ((text: string) => string) | undefined {
    if (!this.shared.recordContent) return undefined;
    return (text) => this.redacted(text);
  }

  private redacted(text: string): string {
    return this.shared.redact ? this.shared.redact(text) : text;
  }
}
