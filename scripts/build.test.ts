// What `npm run build` leaves in dist/ beyond tsc's output (the test runner builds before any test).
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const entry = fileURLToPath(new URL('../dist/bin/adoption-kit.js', import.meta.url));

test("the command's entry is executable, so `npx adoption-kit` runs in the repository as in a project that installed the kit", () => {
  assert.not.throws(() => accessSync(entry, constants.X_OK));
});

test.run();
