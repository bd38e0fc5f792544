// The proxy's judge in a worker thread (worker-judging.ts starts it): it loads the description, owns
// the TrafficJudge, and does each batch of work the proxy's thread posts, in order. Each batch is
// acknowledged with what it found, so the proxy knows how far behind the judge is.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { loadContract, type Exchange } from '../judge/index.ts';
import { KnownKeys } from '../spec/rules/redact.js';
import { ExchangeRecorder, recordedShown, type CapturedBody } from './exchange-record.ts';
import { TrafficJudge } from './judge.ts';
import { resultsOf } from './judging.ts';
import type { Finding } from './findings.ts';
import {
  arrival,
  ARRIVED,
  ARRIVED_FIELDS,
  FINISHED,
  FINISHED_FIELDS,
  HOW_ABANDONED,
  HOW_INJECTED,
  HOW_LOST,
  weightOf,
  type JudgeBatch,
  type JudgeOp,
  type WorkerReply,
  type WorkerSetup,
} from './judge-messages.ts';

const EMPTY = Buffer.alloc(0);

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

  /** Does one op; `weight`: what the proxy's thread counted it as (its raw record's), else weightOf. */
  function run(op: JudgeOp, weight?: number): number {
    switch (op.op) {
      case 'arrived':
        recordedShown(op.exchange, keys);
        judge.arrived(op);
        return 0;
      case 'observe':
        // The inline judge shares the proxy's ring, which learnt the key as the request arrived.
        keys.add(op.key);
        bytes += weight ?? weightOf(op.exchange);
        recordedShown(op.exchange, keys);
        judge.observe({ exchange: op.exchange, key: op.key, ...(op.injected ? { injected: true } : {}) });
        return 1;
      case 'abandoned':
        keys.add(op.key);
        recordedShown(op.exchange, keys);
        judge.abandoned(op);
        if (op.lost) return 0;
        bytes += weight ?? weightOf(op.exchange);
        return 1;
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

  const recorder = new ExchangeRecorder(contract, setup.origin ?? '', keys, false);
  /** Each request arrived and not yet finished, as recorded (URL and headers as they came), with its key. */
  const underWay = new Map<number, { exchange: Exchange; key: string | undefined }>();

  /** An exchange the proxy's thread kept as a raw record: built here, then judged as the object ops are. */
  function arrivedRaw(items: unknown[], i: number): void {
    const recorded = recorder.arrived(items[i + 1] as number, items[i + 2] as number, items[i + 3] as string, items[i + 4] as string, items[i + 5] as string[]);
    underWay.set(recorded.exchange.seq, recorded);
    // What the judge reads as a request arrives, apart from the exchange it will judge.
    run({ op: 'arrived', exchange: arrival(recorded.exchange), key: recorded.key });
  }

  function finishedRaw(items: unknown[], i: number, buffer: Buffer | undefined): number {
    const seq = items[i + 1] as number;
    const recorded = underWay.get(seq);
    if (!recorded) throw new Error(`the proxy finished exchange ${seq}, which never arrived`);
    underWay.delete(seq);
    const { exchange, key } = recorded;
    const how = items[i + 2] as number;
    const reachedTarget = items[i + 3] as boolean;
    if (how === HOW_LOST) {
      const { sentAt, operationId, purpose, outside } = exchange;
      const bare: Exchange = {
        seq,
        sentAt,
        receivedAt: items[i + 4] as number,
        operationId,
        purpose,
        request: { method: exchange.request.method, url: exchange.request.url, headers: {} },
      };
      if (outside) bare.outside = outside;
      bare.error = 'not judged: the judge fell behind';
      return run({ op: 'abandoned', exchange: bare, key, reachedTarget, lost: true });
    }
    const part = (at: number, cut?: boolean): CapturedBody | undefined => {
      const offset = items[at] as number;
      const total = items[at + 2] as number;
      if (offset < 0 && total === 0) return undefined;
      const kept = items[at + 1] as number;
      const body = offset < 0 || !buffer ? EMPTY : buffer.subarray(offset, offset + kept);
      return cut === undefined ? { bytes: body, total } : { bytes: body, total, cut };
    };
    const status = items[i + 7] as number;
    const responseRaw = items[i + 8] as string[] | null;
    recorder.finished(exchange, {
      receivedAt: items[i + 4] as number,
      error: (items[i + 5] as string | null) ?? undefined,
      tlsError: items[i + 6] as boolean,
      status,
      responseRaw: responseRaw ?? undefined,
      response: responseRaw ? (part(i + 9, items[i + 12] as boolean) ?? { bytes: EMPTY, total: 0, cut: items[i + 12] as boolean }) : undefined,
      request: part(i + 13),
    });
    // As the proxy's thread weighed it (RawExchange.weight): the bytes kept of an answer and of a request body.
    const weight = 1_024 + (responseRaw ? (items[i + 10] as number) : 0) + (items[i + 14] as number);
    if (how === HOW_ABANDONED) return run({ op: 'abandoned', exchange, key, reachedTarget }, weight);
    return run({ op: 'observe', exchange, key, injected: how === HOW_INJECTED }, weight);
  }

  port.on('message', (batch: JudgeBatch) => {
    const { items } = batch;
    const buffer = batch.bytes ? Buffer.from(batch.bytes) : undefined;
    let i = 0;
    while (i < items.length) {
      const item = items[i];
      // Read after each: an answer in the batch says what was judged before it, and starts the count again.
      if (item === ARRIVED) {
        arrivedRaw(items, i);
        i += ARRIVED_FIELDS;
      } else if (item === FINISHED) {
        exchanges += finishedRaw(items, i, buffer);
        i += FINISHED_FIELDS;
      } else {
        exchanges += run(item as JudgeOp);
        i++;
      }
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
