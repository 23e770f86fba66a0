/**
 * The inspector's JSON API as the page calls it. Its requests carry the page's HttpOnly
 * cookie (the page never holds the token); `user` is the user asked for (`''`: the
 * inspector's own).
 */

/** `user=<id>` for a named user, else nothing. */
export function userQuery(user: string): string {
  return user ? `user=${encodeURIComponent(user)}` : '';
}

/** `path` with the user's query added. */
function withUser(user: string, path: string): string {
  const q = userQuery(user);
  return q ? path + (path.includes('?') ? '&' : '?') + q : path;
}

/** The API path of a session. */
export function sessionPath(sessionId: string): string {
  return `/api/sessions/${encodeURIComponent(sessionId)}`;
}

/** The API path of a workflow instance. */
export function workflowPath(id: string): string {
  return `/api/workflows/${encodeURIComponent(id)}`;
}

/** GETs `path`; its JSON, or an error `<code>: <message>`. */
export async function api<T>(user: string, path: string): Promise<T> {
  return answer<T>(await fetch(withUser(user, path), { headers: { accept: 'application/json' } }));
}

/** POSTs an action on a session with a JSON body; its JSON answer, or an error. */
export async function act<T>(
  user: string,
  sessionId: string,
  action: string,
  body: Record<string, unknown> = {},
): Promise<T> {
  return post<T>(user, `${sessionPath(sessionId)}/${action}`, body);
}

/** POSTs a JSON body to `path` (an action's); its JSON answer, or an error. */
export async function post<T>(
  user: string,
  path: string,
  body: Record<string, unknown>,
): Promise<T> {
  const res = await fetch(withUser(user, path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return answer<T>(res);
}

async function answer<T>(res: Response): Promise<T> {
  const body = (await res.json()) as { error?: { code: string; message: string } } | null;
  if (!res.ok) {
    const e = body?.error ?? { code: `HTTP_${res.status}`, message: res.statusText };
    throw new Error(`${e.code}: ${e.message}`);
  }
  return body as T;
}
