import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { onOrigin, originOf } from './origin.js';

const BASE = 'http://127.0.0.1:3000/v1';

test('the origin of a URL names its scheme, host and port, the default port written', () => {
  const cases: Array<[string, string | null]> = [
    ['http://127.0.0.1:3000/v1', 'http://127.0.0.1:3000'],
    ['HTTPS://API.Example.test/v1/pets?x=1', 'https://api.example.test:443'],
    ['http://api.example.test', 'http://api.example.test:80'],
    ['http://api.example.test:080/', 'http://api.example.test:80'],
    ['http://[::1]:3000/v1', 'http://[::1]:3000'],
    // A Compose service name may hold an underscore; Go dials it as any name.
    ['http://pet_store:3000/v1', 'http://pet_store:3000'],
    ['http://[::1]@evil.test/v1', null],
    ['http://127.0.0.1:3000%2F@evil.test/', null],
    ['http://127.0.0.1:3000@evil.test/v1', null],
    ['http://evil.test\\@127.0.0.1:3000/v1', null],
    ['ftp://127.0.0.1:3000/v1', null],
    ['/v1/pets', null],
    ['javascript:alert(1)', null],
    ['http://127.0.0.1:3000 /v1', null],
  ];
  for (const [url, origin] of cases) assert.is(originOf(url), origin, url);
});

test('a reference is requested only when it resolves onto the origin of BASE_URL', () => {
  const cases: Array<[string, string | null]> = [
    ['/v1/pets/11', 'http://127.0.0.1:3000/v1/pets/11'],
    ['http://127.0.0.1:3000/v1/pets?cursor=abc', 'http://127.0.0.1:3000/v1/pets?cursor=abc'],
    ['//127.0.0.1:3000/v1/pets/2', 'http://127.0.0.1:3000/v1/pets/2'],
    ['pets/3', 'http://127.0.0.1:3000/pets/3'],
    ['?cursor=abc', 'http://127.0.0.1:3000/v1?cursor=abc'],
    // Another port, host, scheme, or a host hidden behind userinfo or a backslash: another origin.
    ['http://127.0.0.1:3001/v1/pets/11', null],
    ['http://localhost:3000/v1/pets/11', null],
    ['https://127.0.0.1:3000/v1/pets/11', null],
    ['//evil.test/v1/pets', null],
    ['http://127.0.0.1:3000@evil.test/v1/pets', null],
    ['/\\evil.test/v1/pets', null],
    ['\\\\evil.test/v1/pets', null],
    ['javascript:alert(1)', null],
    ['/v1/pets\r\nAuthorization: x', null],
  ];
  for (const [reference, resolved] of cases) assert.is(onOrigin(BASE, reference), resolved, reference);
  assert.is(onOrigin('http://127.0.0.1:3000', 'pets/1'), 'http://127.0.0.1:3000/pets/1', 'a base without a path');
  assert.is(onOrigin('not a url', '/v1/pets'), null, 'no origin to compare with: nothing is requested');
});

test.run();
