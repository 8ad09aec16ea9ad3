// SPDX-License-Identifier: GPL-2.0
// Reads the JSON that `ktrace latency -o` wrote for the trace of known waits
// (gen_trace latency) with Chrome DevTools' own trace engine: each of the
// worst waits is a slice on the waiting thread.  TAP output.
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine/models/trace/trace.js';
import { ok, finish } from './tap.mjs';

const json = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents);
const data = model.parsedTrace().data;
const victim = data.Renderer.processes.get(200)?.threads.get(200);
const waits = (victim?.entries ?? []).filter(e => e.ph === 'X' && e.cat === 'ktrace:latency');
ok(waits.map(e => `${e.name}@${e.ts}+${e.dur}`).join() ===
   'wakeup latency@1000000002+5,preemption latency@1000000008+3,wakeup latency@1000000013.1+0.9',
   'three wait slices on the victim, at their start, as long as the wait', waits.map(e => [e.name, e.ts, e.dur]));
ok(waits[0]?.args.latency === 5000 && waits[0]?.args.waker === 202 &&
   waits[0]?.args.blame.startsWith('hog 201 (rt 50) 5.0 us'), 'the slice carries latency, waker and blame',
   waits[0]?.args);
ok(waits[2]?.args.irq_context === 'softirq' && waits[2]?.args.interrupted === 202 && !('waker' in waits[2].args),
   'the softirq wakeup names its context and the interrupted task, no waker', waits[2]?.args);
finish();
