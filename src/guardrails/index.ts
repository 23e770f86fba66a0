export type {
  GuardrailVerdict,
  GuardrailInput,
  GuardrailOutput,
  InputGuardrail,
  OutputGuardrail,
  AnyGuardrail,
} from './guardrail.js';
export {
  evaluateGuardrails,
  guardrailInput,
  hasBlockingInputGuardrails,
} from './evaluate-guardrails.js';
