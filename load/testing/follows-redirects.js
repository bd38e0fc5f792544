// @ts-check
// A script that leaves k6's redirect following as it is (no maxRedirects): what the redirect tests
// run to show that their second listener would see a request that followed a redirect, so that
// their "nothing arrived there" can fail.
import http from 'k6/http';

export const options = {
  scenarios: {
    follow: { executor: 'constant-arrival-rate', exec: 'follow', rate: 1, timeUnit: '1s', duration: '1s', preAllocatedVUs: 1, maxVUs: 1 },
  },
};

export function follow() {
  http.get(__ENV.BASE_URL + '/pets/1', { headers: { Authorization: 'Bearer ' + __ENV.API_KEY, 'X-Followed': 'yes' } });
}
