// Authentication's checks: 401 without a key, with another scheme and with an unknown key (conform
// sends those: conformance/checks/auth.ts), and the Bearer challenge on every 401 any exchange shows.
import { SECTION, type CheckDef } from '../check-def.ts';
import type { Exchange } from '../exchange.ts';
import type { InspectContext, LiveChecks } from './inspect.ts';

const checks: readonly CheckDef[] = [
  {
    id: 'auth.401-missing',
    level: 'must',
    profile: 'contract',
    section: SECTION.auth,
    title: 'Every operation without Authorization answers 401 with an Error',
  },
  { id: 'auth.401-scheme', level: 'must', profile: 'contract', section: SECTION.auth, title: 'A key sent with another scheme than Bearer answers 401' },
  {
    id: 'auth.www-authenticate',
    level: 'should',
    profile: 'contract',
    section: `${SECTION.auth}; RFC 9110 §11.6.1, RFC 6750 §3`,
    title: 'A 401 carries WWW-Authenticate with the Bearer scheme',
  },
  { id: 'auth.401-unknown-key', level: 'must', profile: 'full', section: SECTION.auth, title: 'An unknown bearer key answers 401, not the resource' },
];

export const authChecks: LiveChecks = {
  name: 'auth',
  checks,
  inspect: (ex: Exchange, ctx: InspectContext) => {
    if (ex.response?.status !== 401 || ex.outside) return;
    const challenge = ex.response.headers['www-authenticate'];
    const ok = challenge !== undefined && /(^|,)\s*bearer(\s|,|$)/i.test(challenge);
    ctx.ledger.assert('auth.www-authenticate', ok, `${ex.purpose}: WWW-Authenticate is ${challenge === undefined ? 'missing' : JSON.stringify(challenge)}`, [
      ex,
    ]);
  },
};
