// Link fields (RFC 8288) parse to exactly what they say, malformed ones are noticed, and formatting
// writes the reference server's form.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatLinks, linkWithRel, parseLinks, type Link } from './link.js';

const parsed: Array<[string | undefined, Link[] | null, string?]> = [
  ['</v1/pets?limit=20&cursor=YWZ0ZXI6MjA>; rel="next"', [{ target: '/v1/pets?limit=20&cursor=YWZ0ZXI6MjA', params: { rel: 'next' } }]],
  [
    '<https://x.test/d>; rel=deprecation; type="text/html"',
    [{ target: 'https://x.test/d', params: { rel: 'deprecation', type: 'text/html' } }],
    'unquoted token values',
  ],
  ['<a>;REL="next" ;  title="a \\"quoted\\" title"', [{ target: 'a', params: { rel: 'next', title: 'a "quoted" title' } }], 'names in any case, quoted-pairs'],
  ['<a>; rel="next"; rel="prev"', [{ target: 'a', params: { rel: 'next' } }], 'the first rel wins (RFC 8288 §3.3)'],
  [
    '<a,b>; rel="x", <c>; rel="y"',
    [
      { target: 'a,b', params: { rel: 'x' } },
      { target: 'c', params: { rel: 'y' } },
    ],
    'a comma inside <> is part of the target',
  ],
  [
    '<a>; rel="x", , <b>',
    [
      { target: 'a', params: { rel: 'x' } },
      { target: 'b', params: {} },
    ],
    'empty list elements are skipped',
  ],
  ['<a>; crossorigin', [{ target: 'a', params: { crossorigin: '' } }], 'a parameter without a value'],
  ['', []],
  [undefined, []],
  ['</v1/pets; rel="next"', null, 'unclosed <'],
  ['/v1/pets; rel="next"', null, 'no <>'],
  ['<a>; ="next"', null, 'a parameter without a name'],
  ['<a>; rel="next', null, 'an unterminated quoted string'],
  ['<a> rel="next"', null, 'text between a link and its parameters'],
];
for (const [value, expected, why] of parsed) {
  test(`parseLinks(${JSON.stringify(value)})${why ? ` (${why})` : ''}`, () => assert.equal(parseLinks(value), expected));
}

test('linkWithRel reads rel as a case-insensitive, space-separated list', () => {
  const links = parseLinks('</a>; rel="alternate successor-version", </b>; rel=NEXT');
  assert.is(linkWithRel(links, 'successor-version')?.target, '/a');
  assert.is(linkWithRel(links, 'next')?.target, '/b');
  assert.is(linkWithRel(links, 'prev'), undefined);
  assert.is(linkWithRel(null, 'next'), undefined);
});

const formatted: Array<[Array<{ target: string; params?: Record<string, string> }>, string]> = [
  [[{ target: '/v1/pets?limit=20&status=available&cursor=abc', params: { rel: 'next' } }], '</v1/pets?limit=20&status=available&cursor=abc>; rel="next"'],
  [
    [
      { target: 'https://x.test/#d', params: { rel: 'deprecation', type: 'text/html' } },
      { target: '/v1/pets?status=available', params: { rel: 'successor-version' } },
    ],
    '<https://x.test/#d>; rel="deprecation"; type="text/html", </v1/pets?status=available>; rel="successor-version"',
  ],
  [[{ target: 'a', params: { title: 'say "hi"' } }], '<a>; title="say \\"hi\\""'],
  [[{ target: 'a', params: { title: 'c:\\tmp' } }], '<a>; title="c:\\\\tmp"'],
  [[{ target: 'a' }], '<a>'],
];
for (const [links, text] of formatted) {
  test(`formatLinks writes ${text} and parses back to the same links`, () => {
    assert.is(formatLinks(links), text);
    assert.equal(
      parseLinks(text),
      links.map((l) => ({ target: l.target, params: l.params ?? {} })),
    );
  });
}

test.run();
