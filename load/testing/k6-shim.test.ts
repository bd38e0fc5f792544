// The shim keeps what k6 keeps of an answer and follows what k6 follows, so that a script that
// reads a body it discarded, or forgets maxRedirects, fails under the shim as it would under k6.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { K6Shim, type FakeRequest, type FakeResponse } from './k6-shim.ts';

function shimWith(answer: (req: FakeRequest) => FakeResponse) {
  const seen: FakeRequest[] = [];
  const shim = new K6Shim((req) => {
    seen.push(req);
    return answer(req);
  }, 0);
  return { shim, seen };
}

const json: FakeResponse = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"id":1}' };

test('with discardResponseBodies a body is null unless the request asks for text, and json() throws, as in k6', () => {
  const { shim } = shimWith(() => json);
  shim.httpOptions = { discardResponseBodies: true };
  const discarded = shim.request('GET', 'http://a.test/v1/pets', null, {});
  assert.is(discarded.body, null);
  assert.throws(() => discarded.json(), /body is null/);
  const read = shim.request('GET', 'http://a.test/v1/pets', null, { responseType: 'text' });
  assert.is(read.body, '{"id":1}');
  assert.equal(read.json(), { id: 1 });
  assert.is(shim.request('GET', 'http://a.test/v1/pets', null, { responseType: 'none' }).body, null);
  shim.httpOptions = {};
  assert.is(shim.request('GET', 'http://a.test/v1/pets', null, {}).body, '{"id":1}', 'kept by default');
  assert.is(shim.bodiesKept, 2, 'the answers that kept their body are counted');
});

test("redirects are followed up to maxRedirects (10 by default), the key dropped on another host as Go's client drops it", () => {
  const { shim, seen } = shimWith((req): FakeResponse =>
    req.url.startsWith('http://a.test/')
      ? { status: 302, headers: { Location: 'http://api.a.test/v1/pets' } }
      : req.url.startsWith('http://api.a.test/')
        ? { status: 307, headers: { location: 'http://b.test:8080/v1/pets' } }
        : json,
  );
  const headers = { Authorization: 'Bearer k', 'X-Other': 'o' };
  const followed = shim.request('POST', 'http://a.test/v1/pets', '{}', { headers });
  assert.is(followed.status, 200);
  assert.is(followed.url, 'http://b.test:8080/v1/pets');
  assert.equal(
    seen.map((r) => [r.method, r.url, r.headers.Authorization ?? null, r.headers['X-Other'], r.body]),
    [
      ['POST', 'http://a.test/v1/pets', 'Bearer k', 'o', '{}'],
      // 302 after a POST is a GET without the body; a subdomain keeps the key.
      ['GET', 'http://api.a.test/v1/pets', 'Bearer k', 'o', null],
      // 307 keeps the method and sends the first request's body again (as k6 v0.47 does, even
      // after a 302 made it a GET); another host loses the key, never the rest.
      ['GET', 'http://b.test:8080/v1/pets', null, 'o', '{}'],
    ],
  );
  assert.is(shim.redirects.length, 2);

  seen.length = 0;
  shim.httpOptions = { maxRedirects: 0 };
  const stopped = shim.request('GET', 'http://a.test/v1/pets', null, { headers });
  assert.is(stopped.status, 302, 'the redirect is the answer');
  assert.is(seen.length, 1);
  assert.is(shim.request('GET', 'http://a.test/v1/pets', null, { headers, redirects: 1 }).status, 307, "a request's redirects wins over maxRedirects");
});

test("as Go 1.19's client (k6 v0.47's), a second hop on the other origin sends the first request's key again, and every hop a Referer", () => {
  const { shim, seen } = shimWith((req): FakeResponse =>
    req.url === 'http://a.test/v1/pets'
      ? { status: 302, headers: { location: 'http://b.test/one' } }
      : req.url === 'http://b.test/one'
        ? { status: 302, headers: { location: '/two' } }
        : json,
  );
  shim.request('GET', 'http://a.test/v1/pets', null, { headers: { Authorization: 'Bearer k' } });
  assert.equal(
    seen.map((r) => [r.url, r.headers.Authorization ?? null, r.headers.Referer ?? null]),
    [
      ['http://a.test/v1/pets', 'Bearer k', null],
      ['http://b.test/one', null, 'http://a.test/v1/pets'],
      ['http://b.test/two', 'Bearer k', 'http://b.test/one'],
    ],
  );
});

test('a 3xx without a Location, or with an empty one, is the answer, as in Go', () => {
  for (const headers of [{}, { Location: '' }] as Array<Record<string, string>>) {
    const { shim, seen } = shimWith(() => ({ status: 302, headers }));
    assert.is(shim.request('GET', 'http://a.test/v1/pets', null, {}).status, 302);
    assert.is(seen.length, 1, JSON.stringify(headers));
  }
});

test.run();
