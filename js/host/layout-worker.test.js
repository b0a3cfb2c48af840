// The layout worker's lifetime, the page's side (js/host/layout-worker.js), with a fake Worker and node's mock timers:
// a worker no view holds is closed after 10 s and started again for the next layout; a layout running past the
// watchdog's limit (60 s) stops its worker and fails with what to do, never falls back to the main thread, and the
// layouts queued behind it run in a fresh worker. (The real worker in Chromium: tests/browser/test_layout_worker.py.)

import { test, mock } from "node:test";
import assert from "node:assert/strict";

import { provideWasm } from "./graphviz-wasm.js";
import { layoutSVG } from "./graphviz.js";
import { holdLayoutWorker, lastLayoutThread, layoutThread, layoutWorkerLimits, workerLayout } from "./layout-worker.js";

const workers = [];

/** A layout as the worker posts it (js/host/layout-worker.js LaidOut): its text, no edges apart. */
const laidOut = (svg) => ({ svg, edges: null, tips: null });

/** A Worker that answers each layout at once with the text "<its index>:<dot>", except a DOT holding "hang" (never). */
class FakeWorker {
  constructor(url, options) {
    this.name = options.name;
    this.sent = [];
    this.terminated = false;
    workers.push(this);
  }

  postMessage(message) {
    assert.ok(!this.terminated, "nothing is posted to a stopped worker");
    if (message.wasm) {
      queueMicrotask(() => this.onmessage({ data: { ready: true } }));
      return;
    }
    this.sent.push(message.dot);
    const laid = laidOut(`${workers.indexOf(this)}:${message.dot}`);
    if (!message.dot.includes("hang")) queueMicrotask(() => this.terminated || this.onmessage({ data: { id: message.id, laid } }));
  }

  terminate() {
    this.terminated = true;
  }
}

globalThis.Worker = FakeWorker;
provideWasm(() => new Uint8Array([0, 97, 115, 109]));

/** Let every pending microtask and promise callback run (setImmediate is not mocked). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** `promise`'s outcome so far: { value } or { error }, or null while it is pending. */
function watch(promise) {
  const seen = { outcome: null };
  promise.then((value) => { seen.outcome = { value }; }, (error) => { seen.outcome = { error }; });
  return seen;
}

/** Mock timers and hold the worker for test `t`, with a first layout done so that a worker runs: its index. */
async function warmWorker(t) {
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  t.after(holdLayoutWorker());
  await workerLayout("digraph { warm }");
  return workers.length - 1;
}

test("the limits default to 10 s idle and 60 s per layout, and take only positive numbers of ms", () => {
  assert.deepEqual(layoutWorkerLimits(), { idleMs: 10_000, jobMs: 60_000 });
  for (const bad of [0, -1, NaN, Infinity, "10", null]) {
    assert.throws(() => layoutWorkerLimits({ idleMs: bad }), RangeError);
    assert.throws(() => layoutWorkerLimits({ jobMs: bad }), RangeError);
  }
  assert.deepEqual(layoutWorkerLimits(), { idleMs: 10_000, jobMs: 60_000 }, "a refused value changes nothing");
});

test("a worker no view holds is closed after 10 s, and a new one starts when a view needs a layout", async (t) => {
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const first = workers.length;
  const release = holdLayoutWorker();
  assert.deepEqual(await workerLayout("digraph { a }"), laidOut(`${first}:digraph { a }`));
  const worker = workers[first];
  assert.equal(worker.name, "micrograd-widget-graphviz");
  mock.timers.tick(120_000);
  assert.ok(!worker.terminated, "held by a view: open however long (and an answered layout has no watchdog left)");
  release();
  mock.timers.tick(9_999);
  assert.ok(!worker.terminated);
  const back = holdLayoutWorker(); // a view shown again within 10 s keeps it
  mock.timers.tick(10_000);
  assert.ok(!worker.terminated);
  back();
  mock.timers.tick(9_999);
  assert.ok(!worker.terminated);
  mock.timers.tick(1);
  assert.ok(worker.terminated, "closed 10 s after its last view went");

  const again = holdLayoutWorker();
  assert.deepEqual(await workerLayout("digraph { b }"), laidOut(`${first + 1}:digraph { b }`), "a fresh worker lays it out");
  assert.equal(workers.length, first + 2);
  again();
  mock.timers.tick(10_000);
  assert.ok(workers[first + 1].terminated);
});

test("closed when idle, the worker is still the layout thread: an early layout (low) starts a fresh one", async (t) => {
  // graph/early-layouts.js lays out early only when layoutThread() is "worker": after an idle close it was "main" until some
  // view's own layout started a worker, so a box selected in between was not laid out early.
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const release = holdLayoutWorker();
  await workerLayout("digraph { c }");
  const first = workers.length - 1;
  release();
  mock.timers.tick(10_000);
  assert.ok(workers[first].terminated, "closed when idle");
  assert.equal(layoutThread(), "worker");
  assert.equal(workers.length, first + 1, "asking starts no worker");
  const again = holdLayoutWorker();
  assert.deepEqual(await workerLayout("digraph { early }", { low: true }), laidOut(`${first + 1}:digraph { early }`));
  assert.equal(layoutThread(), "worker");
  again();
  mock.timers.tick(10_000);
  assert.ok(workers[first + 1].terminated, "the next test starts with no worker");
});

test("a page that never had a worker lays out on the main thread until one starts, and for good when none can", async (t) => {
  const fresh = await import("./layout-worker.js?never-started"); // a module instance of its own: a new page
  assert.equal(fresh.layoutThread(), "main", "no worker tried yet: nothing is laid out early before the first layout");
  const before = workers.length;
  t.after(() => { globalThis.Worker = FakeWorker; });
  globalThis.Worker = undefined; // a page where workers cannot start
  assert.equal(fresh.workerLayout("digraph { a }"), null, "laid out on the main thread");
  assert.equal(fresh.layoutThread(), "main");
  assert.equal(fresh.workerLayout("digraph { b }", { low: true }), null, "no early layout");
  assert.equal(workers.length, before, "no worker started");
});

test("a layout past 60 s stops its worker and fails with what to do; the layouts behind it run in a fresh worker", async (t) => {
  const first = await warmWorker(t);
  const stuck = watch(layoutSVG("digraph { hang }")); // through graphviz.js: no fallback to the main thread
  const view = watch(layoutSVG("digraph { after }"));
  const early = watch(workerLayout("digraph { early }", { low: true }));
  await settle();
  assert.deepEqual(workers[first].sent, ["digraph { warm }", "digraph { hang }"], "one layout at a time");
  mock.timers.tick(59_999);
  await settle();
  assert.equal(stuck.outcome, null);
  assert.ok(!workers[first].terminated);
  mock.timers.tick(1);
  await settle();
  assert.ok(workers[first].terminated, "Graphviz cannot be interrupted: its worker is stopped");
  const { error } = stuck.outcome;
  assert.equal(error.name, "LayoutTimeout");
  assert.match(error.message, /stopped after laying out this picture for 60 s/);
  assert.match(error.message, /close opened boxes, or lower the node budget/);
  assert.deepEqual(view.outcome, { value: `${first + 1}:digraph { after }` }, "in a fresh worker, not on the main thread");
  assert.deepEqual(early.outcome, { value: laidOut(`${first + 1}:digraph { early }`) });
  assert.equal(lastLayoutThread(), "worker");
  assert.equal(workers.length, first + 2);
});

test("the watchdog's limit is the one in force when the layout was sent; a prefetch past it frees the queue too", async (t) => {
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const release = holdLayoutWorker();
  t.after(release);
  t.after(() => layoutWorkerLimits({ jobMs: 60_000 }));
  layoutWorkerLimits({ jobMs: 5_000 });
  const early = watch(workerLayout("digraph { hang early }", { low: true }));
  await settle();
  const first = workers.length - 1; // the worker laying it out (the last test's, still open)
  assert.equal(workers[first].sent.at(-1), "digraph { hang early }");
  const next = watch(workerLayout("digraph { next early }", { low: true })); // no view waits: the watchdog's case
  layoutWorkerLimits({ jobMs: 60_000 }); // the running layout keeps its 5 s
  mock.timers.tick(4_999);
  await settle();
  assert.equal(early.outcome, null);
  assert.equal(next.outcome, null, "waiting behind the prefetch");
  mock.timers.tick(1);
  await settle();
  assert.equal(early.outcome.error.name, "LayoutTimeout");
  assert.match(early.outcome.error.message, /for 5 s/);
  assert.deepEqual(next.outcome, { value: laidOut(`${first + 1}:digraph { next early }`) });
  assert.ok(workers[first].terminated && !workers[first + 1].terminated);
});

test("a stopped layout with nothing behind it leaves no worker; the next layout starts one", async (t) => {
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const release = holdLayoutWorker();
  t.after(release);
  const stuck = watch(workerLayout("digraph { hang }"));
  await settle();
  const first = workers.length - 1;
  assert.equal(workers[first].sent.at(-1), "digraph { hang }");
  mock.timers.tick(60_000);
  await settle();
  assert.equal(stuck.outcome.error.name, "LayoutTimeout");
  assert.equal(workers.length, first + 1, "no worker started for nothing");
  assert.equal(layoutThread(), "worker", "the next layout, an early one too, starts a worker");
  assert.deepEqual(await workerLayout("digraph { next }"), laidOut(`${first + 1}:digraph { next }`));
});

test("a view's layout waits at most 0.5 s behind an early layout: that one is dropped with its worker", async (t) => {
  const first = await warmWorker(t);
  const early = watch(layoutSVG("digraph { hang early }", { low: true }));
  await settle();
  assert.equal(workers[first].sent.at(-1), "digraph { hang early }");
  const view = watch(layoutSVG("digraph { opened }")); // through graphviz.js, as the picture asks
  const later = watch(workerLayout("digraph { later early }", { low: true }));
  mock.timers.tick(499);
  await settle();
  assert.equal(view.outcome, null, "a short early layout is let finish");
  assert.ok(!workers[first].terminated);
  mock.timers.tick(1);
  await settle();
  assert.ok(workers[first].terminated, "Graphviz cannot be interrupted: its worker is stopped");
  assert.deepEqual(early.outcome, { value: null }, "no early layout, no error: the view lays it out when asked");
  assert.deepEqual(view.outcome, { value: `${first + 1}:digraph { opened }` }, "in a fresh worker");
  assert.deepEqual(later.outcome, { value: laidOut(`${first + 1}:digraph { later early }`) }, "early layouts go on after it");
  assert.equal(lastLayoutThread(), "worker");
});

test("an early layout over within 0.5 s is not dropped; nor is a view's layout the next view waits behind", async (t) => {
  const first = await warmWorker(t);
  const early = watch(workerLayout("digraph { early }", { low: true }));
  const view = watch(workerLayout("digraph { opened }"));
  await settle();
  mock.timers.tick(500);
  await settle();
  assert.deepEqual(early.outcome, { value: laidOut(`${first}:digraph { early }`) });
  assert.deepEqual(view.outcome, { value: laidOut(`${first}:digraph { opened }`) });
  const shown = watch(workerLayout("digraph { hang shown }")); // a view waits for it: never dropped for another view
  const other = watch(workerLayout("digraph { other }"));
  mock.timers.tick(5_000);
  await settle();
  assert.equal(shown.outcome, null);
  assert.equal(other.outcome, null, "one layout at a time, in order");
  assert.ok(!workers[first].terminated);
  mock.timers.tick(55_000); // the watchdog ends it
  await settle();
  assert.equal(shown.outcome.error.name, "LayoutTimeout");
  assert.deepEqual(other.outcome, { value: laidOut(`${first + 1}:digraph { other }`) });
});

test("a picture replaced after its layout was sent (signal cancelled) is dropped for the one shown next", async (t) => {
  const first = await warmWorker(t);
  const signal = { cancelled: false };
  const replaced = watch(layoutSVG("digraph { hang replaced }", { signal }));
  await settle();
  signal.cancelled = true; // the view asked for another picture
  const next = watch(layoutSVG("digraph { next }", { signal: { cancelled: false } }));
  mock.timers.tick(500);
  await settle();
  assert.ok(workers[first].terminated);
  assert.deepEqual(replaced.outcome, { value: null }, "nobody shows it");
  assert.deepEqual(next.outcome, { value: `${first + 1}:digraph { next }` });
  const queued = { cancelled: false };
  const skipped = watch(workerLayout("digraph { hang never sent }", { signal: queued }));
  const shown = watch(workerLayout("digraph { shown }"));
  await settle();
  assert.equal(workers[first + 1].sent.at(-1), "digraph { hang never sent }");
  queued.cancelled = true;
  const last = watch(workerLayout("digraph { last }"));
  mock.timers.tick(500);
  await settle();
  assert.deepEqual(skipped.outcome, { value: null });
  assert.deepEqual(shown.outcome, { value: laidOut(`${first + 2}:digraph { shown }`) });
  assert.deepEqual(last.outcome, { value: laidOut(`${first + 2}:digraph { last }`) });
});
