// Methods the description does not give a path: never a 5xx; 405 with Allow (RFC 9110 §15.5.6) and
// OPTIONS with Allow (§9.3.7) at should level only. Requests on /pets/{petId} name an id no
// implementation has handed out, so that a server that does implement DELETE deletes nothing.
import type { Exchange } from '../../judge/exchange.ts';
import type { OperationId } from '../../judge/contract.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import { type Area, type AreaContext } from './area.ts';
import { describeStatus, status, UNKNOWN_PET_ID } from '../../judge/answers.ts';
import { send } from './support.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const checks: readonly CheckDef[] = [
  {
    id: 'methods.405',
    level: 'should',
    profile: 'contract',
    section: 'Endpoints › Other operations; RFC 9110 §15.5.6',
    title: 'A method the description does not give a path (PUT, PATCH, DELETE; POST on /pets/{petId}) answers 405 with Allow naming the described methods',
    needs: ['coverage'],
  },
  {
    id: 'methods.options',
    level: 'should',
    profile: 'contract',
    section: 'RFC 9110 §9.3.7',
    title: 'OPTIONS on a path answers 2xx with Allow naming its described methods',
    needs: ['coverage'],
  },
];

function allowed(ex: Exchange): Set<string> {
  return new Set(
    (ex.response?.headers.allow ?? '')
      .split(',')
      .map((m) => m.trim().toUpperCase())
      .filter(Boolean),
  );
}

async function coverage(ctx: AreaContext): Promise<void> {
  const paths = new Map<string, { operationId: OperationId; methods: string[] }>();
  for (const op of ctx.contract.operations.values()) {
    const entry = paths.get(op.path) ?? { operationId: op.operationId, methods: [] };
    entry.methods.push(op.method);
    paths.set(op.path, entry);
  }
  for (const [template, { operationId, methods }] of paths) {
    const path = template.replace(/\{[^}]+\}/g, String(UNKNOWN_PET_ID));
    const others = METHODS.filter((m) => !methods.includes(m));
    for (const method of [...others, 'OPTIONS']) {
      if (!ctx.budget.take()) return ctx.progress({ type: 'note', text: `methods: cases left out (--max-requests ${ctx.options.maxRequests})` });
      const ex = await send(ctx, {
        operationId,
        purpose: `${method} ${template}`,
        method,
        path,
        outside: 'a method the description does not give this path',
        phase: 'coverage',
      });
      const allow = allowed(ex);
      const missing = methods.filter((m) => !allow.has(m));
      if (method === 'OPTIONS') {
        const ok = (status(ex) ?? 0) >= 200 && (status(ex) ?? 0) < 300 && missing.length === 0;
        ctx.ledger.assert(
          'methods.options',
          ok,
          `OPTIONS ${template}: answered ${describeStatus(ex)}${missing.length ? `, Allow ${JSON.stringify(ex.response?.headers.allow ?? null)} lacks ${missing.join(', ')}` : ''}`,
          [ex],
        );
        continue;
      }
      const problems: string[] = [];
      if (status(ex) !== 405) problems.push(`answered ${describeStatus(ex)}, expected 405`);
      else if (missing.length > 0 || allow.has(method))
        problems.push(`Allow ${JSON.stringify(ex.response?.headers.allow ?? null)} should name ${methods.join(', ')} and not ${method}`);
      ctx.ledger.assert('methods.405', problems.length === 0, `${method} ${template}: ${problems.join('; ')}`, [ex]);
    }
  }
}

export const methodsArea: Area = { name: 'methods', checks, phases: { coverage } };
