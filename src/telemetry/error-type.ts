/** `error.type` of a failed step: the typed error's code, else its class name. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : '_OTHER';
}

/** A thrown value's message, for a span's status. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
