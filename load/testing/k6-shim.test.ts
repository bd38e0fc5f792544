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
      // 307 keeps method and body; another host loses the key, never the rest.
      ['GET', 'http://b.test:8080/v1/pets', null, 'o', null],
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

test.run();
