// SPDX-License-Identifier: GPL-2.0
// Reads the JSON of a real recording of tests/known_workload.c with Chrome DevTools'
// trace engine: ping and pong are named, have running slices, sit on the CPU
// tracks, and wakeup flows connect them.  TAP output.
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine/models/trace/trace.js';
import { ok, finish } from './tap.mjs';

const CPU_PID = 1000000000;

const json = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const expect = Object.fromEntries(fs.readFileSync(process.argv[3], 'utf8').trim().split('\n')
  .map(l => l.split('=')).map(([k, v]) => [k, Number(v)]));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents);
const data = model.parsedTrace().data;
const names = data.Meta.threadsInProcess.get(expect.pid);
ok(names?.get(expect.ping)?.args.name === 'ping' && names?.get(expect.pong)?.args.name === 'pong',
   'ping and pong are named in the workload process', names && [...names.keys()]);
const threads = data.Renderer.processes.get(expect.pid)?.threads;
const running = tid => (threads?.get(tid)?.entries ?? []).filter(e => e.name === 'Running').length;
ok(running(expect.ping) >= expect.iterations && running(expect.pong) >= expect.iterations,
   `ping and pong have at least ${expect.iterations} running slices each`,
   [running(expect.ping), running(expect.pong)]);
const cpuSlices = [...(data.Renderer.processes.get(CPU_PID)?.threads.values() ?? [])]
  .flatMap(t => t.entries).filter(e => e.name === 'ping' || e.name === 'pong');
ok(cpuSlices.length >= 2 * expect.iterations, 'the CPU tracks show ping and pong running', cpuSlices.length);
const flows = data.Flows.flows.filter(f => f.length === 2 && f[0].name === 'wakeup' &&
  [expect.ping, expect.pong].includes(f[0].tid) && [expect.ping, expect.pong].includes(f[1].tid));
ok(flows.length >= expect.iterations, 'wakeup flows go between ping and pong', flows.length);
ok(json.otherData.backend === 'bpf' && json.otherData.clock === 'CLOCK_MONOTONIC',
   'otherData names the backend and the clock', json.otherData);
finish();
