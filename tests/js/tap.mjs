// SPDX-License-Identifier: GPL-2.0
// TAP helpers for the JavaScript checks.
let n = 0, failed = 0;

export function ok(cond, what, detail) {
  n++;
  if (!cond) failed++;
  console.log(`${cond ? '' : 'not '}ok ${n} - ${what}`);
  if (!cond && detail !== undefined) console.log(`#   got: ${JSON.stringify(detail)}`);
}

export function finish() {
  console.log(`1..${n}`);
  console.log(`# ${n - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
