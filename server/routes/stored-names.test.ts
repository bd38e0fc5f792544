// A name is stored exactly or refused, whichever store holds it: an unpaired surrogate ("\ud800" in
// JSON) is not Unicode text, PostgreSQL would keep it as U+FFFD and a file as whatever its encoder
// writes, so the contract's pattern refuses it with 400 before any store sees it. Paired surrogates
// (an emoji) are text, and come back as sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { StorageOptions } from '../store/pet-store.ts';
import { postgresForTests } from '../testing/test-database.ts';
import { send, testServer } from '../testing/helpers.ts';

const postgres = await postgresForTests('stored-names.test.ts');
const dir = mkdtempSync(join(tmpdir(), 'adoption-names-'));

const STORES: Array<[string, () => StorageOptions | null]> = [
  ['memory', () => ({ type: 'memory' })],
  ['file', () => ({ type: 'file', path: join(dir, 'db.json') })],
  ['postgres', () => (postgres.db ? { type: 'postgres', url: postgres.db.url, schema: postgres.db.schema('names') } : null)],
];

const t = suite('names are stored exactly or refused');
const it = postgres.register(t);
t.after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await postgres.db?.drop();
});

for (const [kind, storage] of STORES) {
  const register = kind === 'postgres' ? it : t;
  register(`${kind}: an unpaired surrogate is 400 invalid_body and nothing is stored; an emoji round-trips`, async () => {
    const server = await testServer({ storage: storage()! });
    try {
      const before = await server.app.store.count();
      for (const escaped of ['\\ud800', 'Rex\\udfff', '\\udc36\\ud83d']) {
        const res = await send(server, {
          method: 'POST',
          url: '/v1/pets',
          payload: `{"name":"${escaped}","categoryId":1}`,
          headers: { 'content-type': 'application/json' },
        });
        assert.is(res.status, 400, escaped);
        assert.equal(res.body, {
          code: 'invalid_body',
          message: '"name" must contain a non-blank character and no control characters or unpaired surrogates',
          status: 400,
        });
      }
      assert.is(await server.app.store.count(), before);

      const created = await send(server, {
        method: 'POST',
        url: '/v1/pets',
        payload: `{"name":"Rex \\ud83d\\udc36","categoryId":1}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.is(created.status, 201);
      const listed = await send(server, { method: 'GET', url: '/v1/pets?limit=100' });
      const stored = (listed.body as Array<{ id: number; name: string }>).find((p) => p.id === created.body.id);
      assert.is(stored?.name, 'Rex \u{1F436}');
    } finally {
      await server.stop();
    }
  });
}

t.run();
