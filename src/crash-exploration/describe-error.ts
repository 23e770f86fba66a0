/** An error as a violation's message names it: its name, its code if it has one, its message. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string'
      ? `${error.name} (${code}): ${error.message}`
      : `${error.name}: ${error.message}`;
  }
  return String(error);
}
