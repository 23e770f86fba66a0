import { HttpError } from './http-error.js';

/**
 * Refuses a request a page of another site sent: an `Origin` header (browsers send it on every
 * cross-origin request, and on every POST) that is neither `own` (the origin the request was
 * addressed to) nor one of `allowed` is a 403 `FORBIDDEN_ORIGIN`. No `Origin` (a server, a
 * command line tool) passes: those requests carry no one else's cookies. `Origin: null`
 * (a sandboxed frame, a file) is foreign.
 */
export function refuseForeignOrigin(
  origin: string | null | undefined,
  own: string,
  allowed: readonly string[] = [],
): void {
  if (origin === null || origin === undefined) return;
  if (origin === own || allowed.includes(origin)) return;
  throw new HttpError(
    403,
    'FORBIDDEN_ORIGIN',
    `Requests from ${origin === 'null' ? 'an opaque origin' : origin} are refused: not this site's origin nor an allowed one`,
  );
}
