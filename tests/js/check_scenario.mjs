// SPDX-License-Identifier: GPL-2.0
// Reads the JSON that `ktrace convert` made of the scenario trace
// (tests/gen_trace.c) with Chrome DevTools' own trace engine and checks the
// threads, names, slices and flows it finds.  TAP output.
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine/models/trace/trace.js';
import { ok, finish } from './tap.mjs';

const CPU_PID = 1000000000;

const text = fs.readFileSync(process.argv[2], 'utf8');
let json;
try {
  json = JSON.parse(text);
  ok(true, 'output is valid JSON');
} catch (e) {
  ok(false, 'output is valid JSON', String(e));
  finish();
}

const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents);
const data = model.parsedTrace().data;
const procs = data.Renderer.processes;

function thread(pid, tid) {
  return procs.get(pid)?.threads.get(tid);
}
function slices(pid, tid) {
  return (thread(pid, tid)?.entries ?? []).filter(e => e.ph === 'X');
}

// Names from kernel object records.
const names = data.Meta.threadsInProcess.get(100);
ok(names && names.get(101)?.args.name === 'worker-a' && names.get(102)?.args.name === 'worker-b' &&
   names.get(100)?.args.name === 'demo', 'kernel objects name the threads of process 100',
   names && [...names.keys()]);
ok(json.traceEvents.some(e => e.ph === 'M' && e.name === 'process_name' && e.pid === 100 &&
                         e.args.name === 'demo'), 'process 100 is named demo');

// CPU tracks: which thread ran, with end states and exact durations.
const cpu0 = slices(CPU_PID, CPU_PID + 0);
ok(cpu0.length === 3 && cpu0.every(e => e.name === 'worker-a'), 'CPU 0 ran worker-a three times',
   cpu0.map(e => e.name));
ok(cpu0.map(e => e.args.end_state).join() === 'S,D,X', 'CPU 0 end states S, D, X',
   cpu0.map(e => e.args.end_state));
ok(cpu0.map(e => e.dur).join() === '3,2,0.5', 'CPU 0 slice durations 3, 2, 0.5 us',
   cpu0.map(e => e.dur));
ok(cpu0.every(e => e.args.tid === 101 && e.args.pid === 100 && e.args.prio === 120),
   'CPU slices carry tid, pid and prio', cpu0.map(e => e.args));
const cpu1 = slices(CPU_PID, CPU_PID + 1);
ok(cpu1.map(e => `${e.name}:${e.args.end_state}`).join() === 'worker-b:R,demo:S,odd "name"\\:T',
   'CPU 1 ran worker-b (preempted), demo (sleeping), then a thread with quotes in its name (stopped)',
   cpu1.map(e => e.name));
ok(cpu1[2]?.args.prio === 139, 'the stopped thread ran at prio 139', cpu1[2]?.args);
ok(cpu1[0]?.args.prio === 110, 'worker-b ran at prio 110', cpu1[0]?.args);

// Per-thread running slices.
const running = slices(100, 101).filter(e => e.name === 'Running');
ok(running.length === 3 && running.every(e => e.args.cpu === 0), 'worker-a has 3 running slices on CPU 0',
   running.length);
ok(slices(100, 102).filter(e => e.name === 'Running').length === 1, 'worker-b has 1 running slice');

// Probe events: begin/end pair, complete events, counter, async.
const a = slices(100, 101);
const compute = a.find(e => e.name === 'compute');
ok(compute && compute.dur === 1, 'duration begin/end became a 1 us slice', compute);
ok(a.find(e => e.name === 'io')?.dur === 0.8, 'complete event keeps its 0.8 us duration');
ok(json.traceEvents.some(e => e.ph === 'C' && e.name === 'queue' && e.args.depth === 3),
   'counter event with its value');
ok(['b', 'n', 'e'].every(ph => json.traceEvents.some(e => e.ph === ph && e.id === '0x77')),
   'async begin, instant and end share id 0x77');
ok(json.traceEvents.some(e => e.ph === 'i' && e.name === 'checkpoint' && e.args.bytes === 4096),
   'instant event with its argument');
ok(json.traceEvents.some(e => e.ph === 'i' && e.cat === 'log' && e.args.message === 'scenario done'),
   'log record became an instant with its message');

// Flows: the FXT flow and the wakeup arrows.
const flows = data.Flows.flows.map(f => f.map(e => `${e.name}@${e.ts}/${e.tid}`).join(' -> '));
ok(flows.includes('send@1000000005/102 -> receive@1000000006.1/101'), 'FXT flow send -> receive', flows);
ok(flows.includes('wakeup@1000000005.2/102 -> Running@1000000006/101'),
   'wakeup arrow from worker-b to worker-a\'s next running slice', flows);
ok(flows.length === 2, 'exactly two flows: none from the task a hardirq interrupted', flows);
const irqWake = json.traceEvents.find(e => e.name === 'wakeup' && e.ph === 'i' && e.args.irq_context);
ok(irqWake && irqWake.ts === 1000000009 && irqWake.pid === CPU_PID && irqWake.tid === CPU_PID &&
   irqWake.args.irq_context === 'hardirq' && irqWake.args.tid === 101 && irqWake.args.interrupted === 0,
   'the hardirq wakeup is an instant on CPU 0 naming its context and the interrupted task', irqWake);

// Clock sync, drops and trace information.
const sync = json.traceEvents.filter(e => e.ph === 'c');
ok(sync.length === 1 && sync[0].name === 'clock_sync' && sync[0].args.sync_id === 'ktrace-sync-1' &&
   sync[0].args.issue_ts === 1000000006.69 && sync[0].ts === 1000000006.7,
   'clock_sync event with sync_id and issue_ts', sync);
const drop = json.traceEvents.find(e => e.name === 'dropped');
ok(drop && drop.s === 'g' && drop.args.count === 17 && drop.args.cpu === 1, 'drop record is a global instant', drop);
const od = json.otherData;
ok(od.host === 'testhost' && od.kernel === '6.1.0-test' && od.backend === 'synthetic' &&
   od.clock === 'CLOCK_MONOTONIC', 'otherData has host, kernel, backend, clock', od);
ok(od.dropped === 17 && od.dropped_by_cpu['1'] === 17, 'otherData counts drops per CPU', od);
ok(json.displayTimeUnit === 'ns', 'displayTimeUnit is ns');

finish();
