// Reading a guide's blocks and their markers, and shell lines as sh splits them: what the inventory in
// guides.test.ts and the runners rely on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { blocksOf, commandLines, hereDocument, shellWords } from './guide-blocks.ts';

const GUIDE = [
  'Text.',
  '',
  '<!-- run: start-it -->',
  '```sh',
  'npm start',
  '```',
  '',
  '<!-- illustrative: needs a real k6 and two machines -->',
  '~~~',
  'k6 run x.js',
  '~~~',
  '',
  '```ts',
  'const unmarked = 1;',
  '```',
  '<!-- table:start -->',
  '```text',
  'generated',
  '```',
  '<!-- table:end -->',
  '- a list item',
  '',
  '  ```json',
  '  { "indented": true }',
  '  ```',
].join('\n');

test('blocks: the marker right above the fence, the info string, the body, generated regions', () => {
  const blocks = blocksOf('guide.md', GUIDE);
  assert.equal(
    blocks.map((b) => [b.line, b.info, b.body, b.marker, b.generated]),
    [
      [4, 'sh', 'npm start', { kind: 'run', id: 'start-it' }, null],
      [9, '', 'k6 run x.js', { kind: 'illustrative', reason: 'needs a real k6 and two machines' }, null],
      [13, 'ts', 'const unmarked = 1;', null, null],
      [17, 'text', 'generated', null, 'table'],
      [23, 'json', '{ "indented": true }', null, null],
    ],
  );
});

test('a marker separated from its fence by a blank line is no marker', () => {
  assert.is(blocksOf('g.md', '<!-- run: x -->\n\n```sh\nls\n```')[0]!.marker, null);
});

const WORDS: Array<[string, string[]]> = [
  ['npm start -- --memory --port 0', ['npm', 'start', '--', '--memory', '--port', '0']],
  [`curl -H 'Authorization: Bearer k' -d '{"name":"Mochi"}' http://h/v1`, ['curl', '-H', 'Authorization: Bearer k', '-d', '{"name":"Mochi"}', 'http://h/v1']],
  ['conform --api-key "$KEY" --header X\\ Y', ['conform', '--api-key', '$KEY', '--header', 'X Y']],
];
for (const [line, words] of WORDS) test(`shellWords: ${line}`, () => assert.equal(shellWords(line), words));

test('commandLines: continuations joined, comments and here-documents left out, a trailing & dropped', () => {
  const body = [
    '# the reference server',
    'npm start &                     # in the background',
    'npm run conform -- --base-url http://127.0.0.1:3000/v1 \\',
    '  --api-key test-pro-key',
    "cat > conform.yaml <<'YAML'",
    'base-url: https://x/v1',
    'YAML',
    '',
    'npx adoption-kit conform --config conform.yaml',
  ].join('\n');
  assert.equal(commandLines(body), [
    'npm start',
    'npm run conform -- --base-url http://127.0.0.1:3000/v1 --api-key test-pro-key',
    "cat > conform.yaml <<'YAML'",
    'npx adoption-kit conform --config conform.yaml',
  ]);
  assert.is(hereDocument(body, 'conform.yaml'), 'base-url: https://x/v1\n');
});

test.run();
