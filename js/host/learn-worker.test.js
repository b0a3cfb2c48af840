// The learn worker (js/host/learn-worker.js): the worker's side against a descent loop written here (forward, backward,
// p -= h * grad), chunk by chunk; the page's side with a fake Worker and node's mock timers: a stopped run is never
// heard again, an idle worker is terminated, the view's close terminates it, no Worker means the page's own thread.
import { test } from "node:test";
import assert from "node:assert/strict";

import { DescentWorker, descentServer } from "./learn-worker.js";
import { backward, forward } from "../core/tape.js";
import { lectureL } from "../core/tapes.fixture.js";

/** `count` descent steps by hand: the leaf values after them and each step's loss. */
function handLoop(tape, count, h) {
  const values = Float64Array.from(tape.leafData);
  const data = new Float64Array(tape.n);
  const grad = new Float64Array(tape.n);
  const losses = [];
  for (let s = 0; s < count; s++) {
    forward(tape, values, data);
    backward(tape, data, tape.root, grad);
    losses.push(data[tape.root]);
    for (let j = 0; j < values.length; j++) values[j] -= h * grad[tape.leaves[j]];
  }
  return { values, losses };
}

/** The worker's side driven by hand: its posts, and its chunk run when the test says. */
function server(chunkMs = 0) {
  const posts = [];
  let next = null;
  const handle = descentServer((message) => posts.push(message), (fn) => { next = fn; }, chunkMs);
  const chunk = () => {
    const fn = next;
    next = null;
    assert.ok(fn, "a chunk is waiting");
    fn();
  };
  return { posts, handle, chunk, waiting: () => next !== null };
}

test("the worker's chunks are the hand loop's steps: values, losses, and the replay at the values", () => {
  const tape = lectureL();
  const all = Array.from(tape.leafData.keys());
  const s = server();
  s.handle({ tape });
  s.handle({ start: { id: 1, values: Float64Array.from(tape.leafData), params: all, output: tape.root, h: 0.01 } });
  for (let c = 0; c < 25; c++) s.chunk(); // chunkMs 0: one step per chunk
  assert.equal(s.posts.length, 25);
  const last = s.posts[24];
  assert.equal(last.steps, 25);
  const want = handLoop(tape, 25, 0.01);
  assert.deepEqual(Array.from(last.values), Array.from(want.values), "the same floats");
  assert.deepEqual(s.posts.flatMap((p) => Array.from(p.losses)), want.losses);
  const data = new Float64Array(tape.n);
  forward(tape, want.values, data);
  assert.deepEqual(Array.from(last.data), Array.from(data), "the replay painted is at the values posted");
  assert.deepEqual(Array.from(last.grad), Array.from(backward(tape, data)));
});

test("the worker stops a run when told and runs one chunk loop however many runs start", () => {
  const tape = lectureL();
  const run = (id) => ({ start: { id, values: Float64Array.from(tape.leafData), params: [0], output: tape.root, h: 0.1 } });
  const s = server();
  s.handle({ tape });
  s.handle(run(1));
  s.chunk();
  s.handle({ stop: 1 });
  s.chunk();
  assert.equal(s.posts.length, 1, "nothing after stop");
  assert.ok(!s.waiting());
  s.handle(run(2));
  s.handle(run(3));
  s.chunk();
  assert.ok(s.waiting());
  s.chunk();
  assert.deepEqual(s.posts.slice(1).map((p) => [p.id, p.steps]), [[3, 1], [3, 2]]);
});

/** A Worker the test answers for. */
class FakeWorker {
  constructor(url, options) {
    this.name = options.name;
    this.sent = [];
    this.terminated = false;
    FakeWorker.made.push(this);
  }

  postMessage(message) {
    assert.ok(!this.terminated, "nothing is posted to a stopped worker");
    this.sent.push(message);
  }

  terminate() {
    this.terminated = true;
  }

  answer(data) {
    this.onmessage({ data });
  }
}
FakeWorker.made = [];

function withFakeWorker(t) {
  const before = globalThis.Worker;
  globalThis.Worker = FakeWorker;
  FakeWorker.made = [];
  t.after(() => { globalThis.Worker = before; });
  t.mock.timers.enable({ apis: ["setTimeout"] });
}

const update = (id, steps) => ({ id, steps, values: new Float64Array([steps]), losses: new Float64Array([steps]),
  data: new Float64Array(1), grad: new Float64Array(1) });

test("the page hears only the run going; a stopped worker closes when idle, and at once when the view goes", (t) => {
  withFakeWorker(t);
  const tape = lectureL();
  const dw = new DescentWorker(tape, { idleMs: 1000 });
  const heard = [];
  const run = { values: Float64Array.from(tape.leafData), params: [0, 1], output: tape.root, h: 0.01 };
  assert.equal(dw.start(run, (u) => heard.push([u.id, u.steps]), () => assert.fail("not gone")), true);
  const [w] = FakeWorker.made;
  w.answer({ ready: true });
  assert.equal(w.name, "micrograd-widget-learn");
  assert.ok(w.sent[0].tape && w.sent[1].start, "the tape first, then the run");
  w.answer(update(1, 3));
  dw.stop();
  assert.deepEqual(w.sent.at(-1), { stop: 1 });
  w.answer(update(1, 6)); // sent before the stop arrived: dropped
  assert.deepEqual(heard, [[1, 3]]);
  t.mock.timers.tick(999);
  assert.ok(!w.terminated);
  dw.start(run, (u) => heard.push([u.id, u.steps]), () => {}); // Play again within idleMs: the same worker
  assert.equal(FakeWorker.made.length, 1);
  assert.equal(w.sent.at(-1).start.id, 2);
  t.mock.timers.tick(5000);
  assert.ok(!w.terminated, "a worker with a run is not idle");
  dw.stop();
  t.mock.timers.tick(1000);
  assert.ok(w.terminated, "idle: terminated");
  dw.start(run, () => {}, () => {});
  assert.equal(FakeWorker.made.length, 2, "the next Play starts a fresh one");
  dw.close();
  assert.ok(FakeWorker.made[1].terminated, "the view went: terminated at once");
});

test("a worker dying mid-run says so and the next runs stay on the page's thread; no Worker, no worker", (t) => {
  withFakeWorker(t);
  const tape = lectureL();
  const dw = new DescentWorker(tape);
  let gone = 0;
  dw.start({ values: tape.leafData, params: [0], output: tape.root, h: 0.01 }, () => {}, () => { gone += 1; });
  const [w] = FakeWorker.made;
  w.answer({ ready: true });
  w.answer(update(1, 1));
  w.onerror({ preventDefault() {} }); // after a message: its death, not a refused start
  assert.equal(gone, 1);
  assert.ok(w.terminated);
  assert.equal(dw.start({ values: tape.leafData, params: [0], output: tape.root, h: 0.01 }, () => {}, () => {}), false);
  assert.equal(FakeWorker.made.length, 1);
  globalThis.Worker = undefined;
  assert.equal(new DescentWorker(tape).usable, false);
});

test("a worker that never says it is ready (the bundle's sources unbundled) is given up: the page's thread trains", (t) => {
  withFakeWorker(t);
  const tape = lectureL();
  const dw = new DescentWorker(tape);
  let gone = 0;
  dw.start({ values: tape.leafData, params: [0], output: tape.root, h: 0.01 }, () => {}, () => { gone += 1; });
  t.mock.timers.tick(5000);
  assert.equal(gone, 1);
  assert.ok(FakeWorker.made[0].terminated);
  assert.equal(dw.usable, false);
});
