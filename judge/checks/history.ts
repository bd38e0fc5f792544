// The store's history judged whole (judge/history/): some order of the operations, consistent with
// real time, explains every answer. conform's model phase judges the history it sends, the proxy the
// traffic it sees; both report what judge/history finds under this one id.
import { SECTION, type CheckDef } from '../check-def.ts';

export const HISTORY_CHECK_ID = 'history.linearizable';

export const HISTORY_CHECKS: readonly CheckDef[] = [
  {
    id: HISTORY_CHECK_ID,
    level: 'must',
    profile: 'full',
    section: `${SECTION.create}; ${SECTION.get}; ${SECTION.list}`,
    title:
      "The store's answers are explained by one order of the operations consistent with real time: each acknowledged pet readable and listed where its status says, ids unique, fields kept, a refused create never visible",
  },
];
