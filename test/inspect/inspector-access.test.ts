import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle, type InspectorOptions } from '../../src/inspect.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { annWaitsForRefund, triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

/** Ann's session `s1` waits for a refund approval in a sub-agent; an inspector of her sessions. */
async function refundWaiting(options: Partial<InspectorOptions> = {}) {
  const { temp, fixture, runtime, paused } = await annWaitsForRefund(temps);
  const inspector = await startInspector({ runtime, userId: 'ann', ...options });
  open.push(inspector);
  const key = { sessionId: 's1', userId: 'ann' };
  return {
    inspector,
    client: inspectorClient(inspector),
    call: paused.interruptions[0]!,
    seen: fixture.seen,
    version: async () => (await temp.store.load(key)).version,
  };
}

const errorCode = (json: unknown) => (json as { error: { code: string } }).error.code;

describe('inspector access', () => {
  it('every request needs the token; the address with it trades it once for an HttpOnly SameSite=Strict cookie on a clean address; the page never holds it; a cookie acts only from the page', async () => {
    const { inspector, client, call, seen, version } = await refundWaiting();
    const before = await version();
    expect(inspector.url).toBe(
      `http://127.0.0.1:${inspector.port}/?token=${encodeURIComponent(inspector.token)}`,
    );
    // another local user can connect, but without the token gets nothing: no page, no token
    for (const path of [
      '/',
      '/app.js',
      '/api/info',
      '/api/sessions',
      '/api/sessions/s1',
      '/api/live',
    ]) {
      const answer = await client.raw('GET', path);
      expect([path, answer.status, errorCode(answer.json)]).toEqual([path, 403, 'BAD_TOKEN']);
      expect(answer.text).not.toContain(inspector.token);
    }
    expect((await client.raw('GET', '/?token=not-the-token-at-all')).status).toBe(403);
    // the token in a query string opens the page only, never an endpoint
    const inQuery = await client.raw('GET', `/api/sessions?token=${inspector.token}`);
    expect(inQuery.status).toBe(403);

    const traded = await client.raw(
      'GET',
      new URL(inspector.url).pathname + new URL(inspector.url).search,
    );
    expect(traded.status).toBe(303);
    expect(traded.headers.location).toBe('/');
    const setCookie = traded.headers['set-cookie']![0]!;
    expect(setCookie).toMatch(
      new RegExp(
        `^agentstate-inspector-${inspector.port}=[\\w-]+; HttpOnly; SameSite=Strict; Path=/$`,
      ),
    );
    expect(setCookie).not.toContain(inspector.token);
    const cookie = setCookie.split(';')[0]!;
    const page = await client.raw('GET', '/', { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
    expect(page.text).not.toContain(inspector.token);
    expect((await client.raw('GET', '/api/sessions/s1', { headers: { cookie } })).status).toBe(200);
    const wrongCookie = await client.raw('GET', '/api/sessions', {
      headers: { cookie: `agentstate-inspector-${inspector.port}=${inspector.token}` },
    });
    expect(wrongCookie.status).toBe(403);

    // an action on the cookie needs the page's own Origin (another site's page cannot act)
    const approve = '/api/sessions/s1/approve';
    const body = JSON.stringify({ callId: call.callId, runId: call.runId });
    const origin = `http://127.0.0.1:${inspector.port}`;
    const refused = [
      await client.raw('POST', approve, { body, headers: { cookie } }),
      await client.raw('POST', approve, {
        body,
        headers: { cookie, origin: 'http://evil.example' },
      }),
      await client.raw('POST', approve, { body, headers: { origin } }),
    ];
    expect(refused.map((a) => [a.status, errorCode(a.json)])).toEqual([
      [403, 'FORBIDDEN_ORIGIN'],
      [403, 'FORBIDDEN_ORIGIN'],
      [403, 'BAD_TOKEN'],
    ]);
    expect(seen.refunds).toEqual([]);
    expect(await version()).toBe(before);
    const done = await client.raw('POST', approve, { body, headers: { cookie, origin } });
    expect([done.status, done.json]).toMatchObject([200, { interrupted: false }]);
    expect(seen.refunds).toEqual(['o']);
  });

  it('a malformed percent-escape in a path is a typed 400, not a 500', async () => {
    const { client, version } = await refundWaiting();
    const before = await version();
    for (const path of ['/api/sessions/%E0%A4%A', '/%', '/api/sessions/s1/runs/%ZZ']) {
      const answer = await client.get(path);
      expect([path, answer.status, errorCode(answer.json)]).toEqual([path, 400, 'BAD_REQUEST']);
    }
    const action = await client.post('/api/sessions/%ZZ/cancel');
    expect([action.status, errorCode(action.json)]).toEqual([400, 'BAD_REQUEST']);
    expect(await version()).toBe(before);
  });
});

describe('inspector beyond loopback', () => {
  it('refuses to start on a non-loopback host without authorize (nothing is bound)', async () => {
    const temp = await temps.open();
    const runtime = triageWithBilling({ store: temp.store }).triage.runtimeFor(temp.store);
    for (const host of ['0.0.0.0', '::', '192.0.2.7', 'inspector.example']) {
      await expect(startInspector({ runtime, host })).rejects.toThrow(
        new RegExp(`option "host" is "${host}", not a loopback address: .*option "authorize"`),
      );
    }
    await expect(
      startInspector({ runtime, host: '0.0.0.0', authorize: 'yes' as never }),
    ).rejects.toThrow(/option "authorize"/);
  });

  it("bound to every interface, each request passes the app's authorize and then the token; a request naming another Host gets no token and cannot approve", async () => {
    const asked: (string | undefined)[] = [];
    const { inspector, client, call, seen, version } = await refundWaiting({
      host: '0.0.0.0',
      authorize: (req) => {
        asked.push(req.headers.host);
        return req.headers.authorization === 'Bearer ops-key';
      },
    });
    const before = await version();
    const attacker = { host: `attacker.example:${inspector.port}` };
    const ops = { ...attacker, authorization: 'Bearer ops-key' };
    const approve = '/api/sessions/s1/approve';
    const body = JSON.stringify({ callId: call.callId, runId: call.runId });
    const token = { 'x-agentstate-token': inspector.token };

    const page = await client.raw('GET', '/', { headers: attacker });
    expect([page.status, errorCode(page.json)]).toEqual([403, 'NOT_AUTHORIZED']);
    expect(page.text).not.toContain(inspector.token);
    // past authorize, the page still holds no token and the token is still needed
    const authorized = await client.raw('GET', '/', { headers: ops });
    expect([authorized.status, errorCode(authorized.json)]).toEqual([403, 'BAD_TOKEN']);
    expect(authorized.text).not.toContain(inspector.token);
    const refused = [
      await client.raw('POST', approve, { body, headers: { ...attacker, ...token } }),
      await client.raw('POST', approve, { body, headers: ops }),
    ];
    expect(refused.map((a) => [a.status, errorCode(a.json)])).toEqual([
      [403, 'NOT_AUTHORIZED'],
      [403, 'BAD_TOKEN'],
    ]);
    expect(seen.refunds).toEqual([]);
    expect(await version()).toBe(before);
    expect(asked).toContain(attacker.host);

    const done = await client.raw('POST', approve, { body, headers: { ...ops, ...token } });
    expect([done.status, done.json]).toMatchObject([200, { interrupted: false }]);
    expect(seen.refunds).toEqual(['o']);
  });
});
