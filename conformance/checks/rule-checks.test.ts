// Each rate-limit rule of spec/rules names the conformance check that reports it (rules.js, read by
// the kit's verdict and by load/README.md's table): every name must be a check of the catalogue.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RULES } from '../../judge/rules/rules.js';
import { CATALOGUE } from './index.ts';

for (const [kind, rule] of Object.entries(RULES)) {
  test(`rule ${kind} names ${rule.check}, a check of the catalogue`, () => {
    assert.ok(
      CATALOGUE.some((c) => c.id === rule.check),
      `${kind} → ${rule.check}`,
    );
  });
}

test.run();
