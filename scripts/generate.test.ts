// Every artifact derived from another source (spec/rules/contract.js from spec/openapi.yaml, the
// tables of the guides from the code, the load/lib declarations from its JSDoc) is what
// `npm run generate` would write now.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GENERATED, render } from './generate.ts';

test('every generated artifact is current (run npm run generate)', async () => {
  for (const file of await render()) assert.ok(file.current === file.fresh, `${file.path} is stale: run npm run generate`);
});

test('every load/lib module has its declaration registered', () => {
  const declarations = GENERATED.filter((g) => /^load\/lib\/.*\.d\.ts$/.test(g.file)).map((g) => g.file);
  assert.ok(declarations.length >= 6, declarations.join(', '));
  assert.ok(declarations.includes('load/lib/phases.d.ts'));
});

test("the contract's generated modules are registered: the facts (values) and the types", () => {
  const files = GENERATED.map((g) => g.file);
  assert.ok(files.includes('spec/rules/contract.js'));
  assert.ok(files.includes('spec/contract-types.ts'));
});

test('the registry names each file and block once, and every generator writes something', async () => {
  const keys = GENERATED.map((g) => `${g.file}#${g.block ?? ''}`);
  assert.is(new Set(keys).size, keys.length);
  for (const entry of GENERATED) assert.ok(String(await entry.generate()).trim().length > 0, entry.file);
});

test('a block that a guide lacks is an error, not a silent skip', async () => {
  try {
    await render([{ file: 'conformance/README.md', block: 'no-such-block', generate: () => 'x' }]);
    assert.unreachable('expected an error');
  } catch (error) {
    assert.match((error as Error).message, /no <!-- no-such-block:start -->/);
  }
});

test.run();
