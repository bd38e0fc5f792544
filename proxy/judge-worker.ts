// The proxy's judge in a worker thread (worker-judging.ts starts it): it loads the description, owns
// the TrafficJudge, and does each batch of work the proxy's thread posts, in order. Each batch is
// acknowledged with what it found, so the proxy knows how far behind the judge is.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { loadContract } from '../judge/index.ts';
import { KnownKeys } from '../spec/rules/redact.js';
import { recordedShown } from './exchange-record.ts';
import { TrafficJudge } from './judge.ts';
import { resultsOf } from './judging.ts';
import type { Finding } from './findings.ts';
import { weightOf, type JudgeOp, type WorkerReply, type WorkerSetup } from './judge-messages.ts';

async function serve(port: MessagePort, setup: WorkerSetup): Promise<void> {
  const contract = await loadContract(setup.specPath);
  const keys = new KnownKeys(setup.keys);
  let findings: Finding[] = [];
  let changed: Map<string, number> | undefined;
  const judge = new TrafficJudge({
    contract,
    dateHeader: setup.dateHeader,
    ...(setup.tolerances ? { tolerances: setup.tolerances } : {}),
    ...(setup.limits ? { limits: setup.limits } : {}),
    onFinding: (finding) => findings.push(finding),
    keys,
  });
  const say = (reply: WorkerReply) => port.postMessage(reply);
  let exchanges = 0;
  let bytes = 0;
  /** What was judged since last said: said before any answer, so findings come before the results that count them. */
  const judged = () => {
    const told = findings;
    findings = [];
    const keysChanged = changed && changed.size > 0 ? [...changed] : undefined;
    changed?.clear();
    say({ t: 'judged', exchanges, bytes, findings: told, ...(keysChanged ? { changed: keysChanged } : {}) });
    exchanges = 0;
    bytes = 0;
  };

  function run(op: JudgeOp): number {
    switch (op.op) {
      case 'arrived':
        recordedShown(op.exchange, keys);
        judge.arrived(op);
        return 0;
      case 'observe':
        // The inline judge shares the proxy's ring, which learnt the key as the request arrived.
        keys.add(op.key);
        bytes += weightOf(op.exchange);
        recordedShown(op.exchange, keys);
        judge.observe({ exchange: op.exchange, key: op.key, ...(op.injected ? { injected: true } : {}) });
        return 1;
      case 'abandoned':
        keys.add(op.key);
        recordedShown(op.exchange, keys);
        judge.abandoned(op);
        if (op.lost) return 0;
        bytes += weightOf(op.exchange);
        return 1;
      case 'learnt':
        keys.add(op.secret);
        return 0;
      case 'watch':
        if (!changed) {
          changed = new Map();
          judge.subscribe((label) => changed!.set(label, (changed!.get(label) ?? 0) + 1));
        }
        return 0;
      case 'results':
        judged();
        say({ t: 'results', id: op.id, results: resultsOf(judge, op.unjudged) });
        return 0;
      case 'report': {
        const report = judge.keyReport(op.label);
        judged();
        say({
          t: 'report',
          id: op.id,
          label: op.label,
          report: report && {
            key: report.key,
            requests: report.requests,
            refused: report.refused,
            server: report.server,
            timeline: report.timeline,
            ...(report.client ? { client: report.client } : {}),
          },
        });
        return 0;
      }
    }
  }

  port.on('message', (batch: JudgeOp[]) => {
    for (const op of batch) {
      // Read after run(): an answer in the batch says what was judged before it, and starts the count again.
      const judgedNow = run(op);
      exchanges += judgedNow;
    }
    judged();
  });
  say({ t: 'ready' });
}

if (parentPort) {
  const port = parentPort;
  serve(port, workerData as WorkerSetup).catch((error: unknown) => {
    port.postMessage({ t: 'failed', error: String((error as Error)?.stack ?? error) } satisfies WorkerReply);
  });
}
