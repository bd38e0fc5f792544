// The model phase: fair on the implementations that decide differently (the reference, the second),
// at 1, 32 and 128 clients; a real flaw found, shrunk, saved and replayed; programs a seed repeats.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadContract } from '../../judge/index.ts';
import { FLAWS } from '../testing/flaws/catalogue.ts';
import { conformOn, startTarget, type Implementation } from '../testing/flaws/harness.ts';
import { generateProgram } from './generate.ts';
import { loadHistory } from './history-file.ts';
import { keepSteps, stepCount, steps } from './program.ts';
import { guideBlock } from '../../scripts/guide-blocks.ts';

const MODEL_CHECKS = ['model.answers', 'model.window-admissible', 'history.linearizable'];
const dir = mkdtempSync(join(tmpdir(), 'model-histories-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const fair = suite('the model phase passes implementations that conform, however many clients send');

const CASES: Array<[Implementation, number]> = [
  ['reference', 1],
  ['reference', 32],
  ['reference', 128],
  ['second', 1],
  ['second', 32],
  ['second', 128],
];
for (const [implementation, clients] of CASES) {
  fair(`${implementation}, ${clients} client${clients === 1 ? '' : 's'}, with --rate-limit-key: no model check fails`, async () => {
    const target = await startTarget(undefined, implementation);
    try {
      const report = await conformOn(target, { rateLimitKey: true, phases: ['model'], checks: MODEL_CHECKS, clients, seed: 41 + clients, historyDir: dir });
      const results = report.results.filter((r) => MODEL_CHECKS.includes(r.id));
      assert.equal(
        results.filter((r) => r.outcome !== 'passed').map((r) => `${r.id}: ${r.outcome} ${r.failures[0]?.message ?? r.reason ?? ''}`),
        [],
      );
    } finally {
      await target.stop();
    }
  });
}
fair.run();

const found = suite('a flaw the model finds is shrunk, saved and replayed');

found('a server that takes the Bearer scheme case-sensitively: one request, one client, replayed with the same verdict', async () => {
  const flaw = FLAWS.find((f) => f.id === 'scheme-case-sensitive')!;
  const target = await startTarget(flaw);
  try {
    const report = await conformOn(target, { phases: ['model'], checks: MODEL_CHECKS, seed: 7, historyDir: dir });
    const answers = report.results.find((r) => r.id === 'model.answers')!;
    assert.is(answers.outcome, 'failed');
    const message = answers.failures[0]!.message;
    assert.match(message, /answered 401 to a valid key/);
    assert.match(message, /shrunk from \d+ requests to 1 from 1 client \(seed 7; sent again, it failed again; saved: conform --replay /);
    const file = /--replay (\S+)\)/.exec(message)![1]!;
    assert.ok(existsSync(file));
    const saved = loadHistory(file);
    assert.is(stepCount(saved.program), 1);
    assert.not.match(readFileSync(file, 'utf8'), new RegExp(target.apiKey), 'the file names keys by role, never their value');
    const replayed = await conformOn(target, { replay: file });
    assert.is(replayed.results.find((r) => r.id === 'model.answers')!.outcome, 'failed');
    assert.is(replayed.exitCode, 1);
  } finally {
    await target.stop();
  }
});

found('a store that hands out one id twice under concurrent creates: found by the whole history', async () => {
  const flaw = FLAWS.find((f) => f.id === 'racy-ids')!;
  const target = await startTarget(flaw);
  try {
    const report = await conformOn(target, { rateLimitKey: true, phases: ['model'], checks: MODEL_CHECKS, seed: 20_251_205, historyDir: dir });
    const failed = report.results.filter((r) => r.outcome === 'failed').map((r) => r.id);
    assert.ok(failed.length > 0, `${flaw.id} found by the model`);
  } finally {
    await target.stop();
  }
});
found.run();

const programs = suite('programs');

programs('a seed gives the same program; another seed another; every program reads only earlier rounds', async () => {
  const contract = await loadContract();
  const options = { clients: 4, steps: 120, keys: ['api-key', 'rate-limit-key'] as const, rateLimitRequests: 30 };
  const a = generateProgram(contract, { ...options, seed: 1 });
  assert.equal(generateProgram(contract, { ...options, seed: 1 }), a);
  assert.not.equal(generateProgram(contract, { ...options, seed: 2 }), a);
  const roundOf = new Map(a.rounds.flatMap((round, i) => round.map((s) => [s.id, i] as const)));
  for (const s of steps(a)) {
    if (s.request.op === 'get' && 'createdBy' in s.request.pet) assert.ok(roundOf.get(s.request.pet.createdBy)! < roundOf.get(s.id)!);
  }
  const methods = new Set(steps(a).map((s) => `${s.request.op}${'head' in s.request && s.request.head ? ' HEAD' : ''}`));
  for (const m of ['create', 'get', 'list', 'next']) assert.ok(methods.has(m), m);
  assert.ok(steps(a).some((s) => 'invalid' in s.credentials));
  assert.ok(new Set(steps(a).flatMap((s) => ('spelling' in s.credentials ? [s.credentials.spelling] : []))).size >= 3);
  assert.ok(a.windowWaits && a.windowWaits.length === 1, 'the rate-limit key crosses its window, then waits for it to pass');
});

programs('keeping steps keeps the window waits before the first round kept after them', () => {
  const step = (id: number) => ({
    id,
    client: 0,
    credentials: { key: 'api-key' as const, spelling: 'canonical' as const },
    request: { op: 'list' as const, query: {} },
    expect: { valid: true as const, level: 'must' as const, success: [200] },
    label: `s${id}`,
  });
  const program = { seed: 1, clients: 1, rounds: [[step(1)], [step(2)], [step(3)], [step(4)]], windowWaits: [2] };
  assert.equal(keepSteps(program, new Set([1, 4])), { seed: 1, clients: 1, rounds: [[step(1)], [step(4)]], windowWaits: [1] });
  assert.equal(keepSteps(program, new Set([1, 2])), { seed: 1, clients: 1, rounds: [[step(1)], [step(2)]] });
});
programs.run();

const guide = suite('the conformance guide');

guide('its model-phase block is what the report prints for the flaw, and its replay line replays it', async () => {
  const block = guideBlock('conformance/README.md', 'model-shrunk');
  const [printed, command] = block.trimEnd().split('\n$ ');
  const target = await startTarget(FLAWS.find((f) => f.id === 'scheme-case-sensitive')!);
  const cwd = process.cwd();
  const work = mkdtempSync(join(tmpdir(), 'model-guide-'));
  process.chdir(work);
  try {
    const report = await conformOn(target, { phases: ['model'], checks: MODEL_CHECKS, seed: 7 });
    assert.fixture(report.results.find((r) => r.id === 'model.answers')!.failures[0]!.message, printed!);
    const file = /--replay (\S+)$/.exec(command!)![1]!;
    const replayed = await conformOn(target, { replay: file });
    assert.is(replayed.exitCode, 1);
  } finally {
    process.chdir(cwd);
    rmSync(work, { recursive: true, force: true });
    await target.stop();
  }
});
guide.run();
