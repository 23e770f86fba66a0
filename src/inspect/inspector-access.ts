import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './http-io.js';

const TOKEN_HEADER = 'x-agentstate-token';

/** The names of this machine that a loopback-bound inspector answers to. */
export const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Who may ask the inspector what: checked on every request before it is routed. */
export interface InspectorAccess {
  /**
   * Lets the request through or throws a 403: the app's `authorize` first (when given), the
   * Host (a loopback bind answers loopback names only), the Origin (a browser's request comes
   * from the inspector's own page), then a credential: the token in the `x-agentstate-token`
   * header, or the page's cookie. `GET /?token=` trades the token for that cookie and
   * redirects to the clean address; the answer is then sent and `true` returned.
   */
  admit(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
}

/**
 * The access rules of one inspector: its token, a cookie secret of its own (a new one per
 * start, never shown), and the app's `authorize` hook for a bind beyond loopback.
 */
export function inspectorAccess(options: {
  token: string;
  host: string;
  port: number;
  authorize?: ((request: IncomingMessage) => boolean | Promise<boolean>) | undefined;
}): InspectorAccess {
  const { token, host, port, authorize } = options;
  const secret = randomBytes(32).toString('base64url');
  // cookies are scoped by host name, not port: each inspector's cookie has a name of its own
  const cookieName = `agentstate-inspector-${port}`;

  return {
    async admit(req, res, url) {
      if (authorize && !(await authorize(req))) {
        throw new HttpError(403, 'NOT_AUTHORIZED', 'The app refused this request');
      }
      if (LOOPBACK.has(host)) checkHost(req, port);
      const origin = req.headers.origin;
      if (origin !== undefined && !sameOrigin(origin, req.headers.host)) {
        throw new HttpError(403, 'FORBIDDEN_ORIGIN', 'Requests must come from the inspector page');
      }
      const exchange = url.searchParams.get('token');
      if (req.method === 'GET' && url.pathname === '/' && exchange !== null) {
        if (!same(exchange, token)) throw badToken();
        res.writeHead(303, {
          location: '/',
          'set-cookie': `${cookieName}=${secret}; HttpOnly; SameSite=Strict; Path=/`,
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        });
        res.end();
        return true;
      }
      const header = req.headers[TOKEN_HEADER];
      if (typeof header === 'string' && same(header, token)) return false;
      if (!same(cookieOf(req, cookieName) ?? '', secret)) throw badToken();
      // a cookie rides along by itself: an action on it must say it comes from the page
      if (req.method !== 'GET' && origin === undefined) {
        throw new HttpError(403, 'FORBIDDEN_ORIGIN', 'Actions from the page carry its Origin');
      }
      return false;
    },
  };
}

const badToken = () =>
  new HttpError(
    403,
    'BAD_TOKEN',
    `Open the inspector's address with its token (printed by \`agentstate inspect\`, returned by startInspector), or send the token in ${TOKEN_HEADER}`,
  );

/**
 * A loopback-bound inspector answers only requests addressed to a loopback name (a page on
 * another site that rebinds its DNS name to 127.0.0.1 is refused).
 */
function checkHost(req: IncomingMessage, port: number): void {
  const asked = req.headers.host ?? '';
  const name = asked.replace(/:\d+$/, '');
  if (!LOOPBACK.has(name) || asked !== `${name}:${port}`) {
    throw new HttpError(403, 'FORBIDDEN_HOST', 'Requests must address the inspector by loopback');
  }
}

/** Whether a browser's Origin names the host the request was sent to. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Compares two secrets in constant time. */
function same(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
