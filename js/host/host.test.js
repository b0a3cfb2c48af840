// The exported page's host (js/host/host.js): its pure parts and its model interface. Rendering a page is tested in
// Chromium by tests/browser/test_export.py.

import { test } from "node:test";
import assert from "node:assert/strict";

import { HostManager, HostModel, decodeBuffer, modelIdOf, putBuffers, sameValue } from "./host.js";

test("a reference names its model: IPY_MODEL_<id>, anywidget:<id> or the bare id", () => {
  assert.equal(modelIdOf("IPY_MODEL_abc123"), "abc123");
  assert.equal(modelIdOf("anywidget:abc123"), "abc123");
  assert.equal(modelIdOf("abc123"), "abc123");
  assert.throws(() => modelIdOf(""), /not a widget reference/);
  assert.throws(() => modelIdOf(null), /not a widget reference/);
});

test("saved buffers decode from base64 and hex into DataViews at their paths", () => {
  const bytes = new Uint8Array(new Float64Array([2, -3.5]).buffer);
  const b64 = Buffer.from(bytes).toString("base64");
  const hex = Buffer.from(bytes).toString("hex");
  assert.deepEqual(decodeBuffer(b64), bytes);
  assert.deepEqual(decodeBuffer(hex, "hex"), bytes);
  assert.throws(() => decodeBuffer("zz", "hex"), /not hex/);
  assert.throws(() => decodeBuffer("AA==", "utf-7"), /unknown encoding/);
  const state = putBuffers({ spec: { n: 2 }, data: "" }, [
    { path: ["spec", "leaf_data"], data: b64, encoding: "base64" },
    { path: ["data"], data: hex, encoding: "hex" },
  ]);
  assert.ok(state.spec.leaf_data instanceof DataView && state.data instanceof DataView);
  assert.equal(state.spec.leaf_data.getFloat64(8, true), -3.5);
  assert.equal(state.data.getFloat64(0, true), 2);
  assert.equal(state.spec.n, 2);
  assert.throws(() => putBuffers({}, [{ path: ["a", "b"], data: b64 }]), /path is missing/);
  assert.throws(() => putBuffers({}, [{ path: [], data: b64 }]), /no path/);
});

test("values compare as Backbone's set compares them", () => {
  assert.ok(sameValue([1, 2, { a: NaN }], [1, 2, { a: NaN }]));
  assert.ok(!sameValue(0, -0), "-0 is a change (a leaf set to -0.0)");
  assert.ok(!sameValue([1, 2], [1, 2, 3]));
  assert.ok(!sameValue({ a: 1 }, { b: 1 }));
  assert.ok(!sameValue([1], { 0: 1 }));
  assert.ok(sameValue(new DataView(new Uint8Array([1, 2]).buffer), new Uint8Array([1, 2])));
  assert.ok(!sameValue(new Uint8Array([1, 2]), [1, 2]));
});

function saved() {
  const data = Buffer.from(new Float64Array([1.5]).buffer).toString("base64");
  return {
    w: { model_name: "AnyModel", model_module: "anywidget",
      state: { leaf_values: [1, 2], assets: "IPY_MODEL_a", layout: "IPY_MODEL_l" },
      buffers: [{ path: ["data"], data, encoding: "base64" }] },
    a: { model_name: "AnyModel", model_module: "anywidget", state: { code: "export default {}" } },
    l: { model_name: "LayoutModel", model_module: "@jupyter-widgets/base", state: {} },
  };
}

test("set fires change:<name> then change, once, only for values that change", () => {
  const model = new HostModel(null, "w", saved().w);
  const seen = [];
  model.on("change:leaf_values change:output", (m, v) => seen.push(["values", m === model, v]));
  model.on("change", () => seen.push(["change"]));
  model.set("leaf_values", [1, 2]);
  assert.deepEqual(seen, [], "an equal value is no change");
  model.set({ leaf_values: [1, 3], output: 2 });
  assert.deepEqual(seen, [["values", true, [1, 3]], ["values", true, 2], ["change"]]);
  assert.deepEqual(model.get("leaf_values"), [1, 3]);
  assert.equal(model.get("data").getFloat64(0, true), 1.5);
});

test("off removes by event, callback or context; a throwing listener does not stop the others", () => {
  const model = new HostModel(null, "w", saved().w);
  const calls = [];
  const mine = {};
  const cb = () => calls.push("cb");
  model.on("change:output", cb);
  model.on("change:output", () => calls.push("ctx"), mine);
  model.on("msg:custom", () => {
    throw new Error("a listener's bug");
  });
  model.on("msg:custom", (msg) => calls.push(msg.type));
  const error = console.error;
  console.error = () => {};
  try {
    model.trigger("msg:custom", { type: "replay" });
  } finally {
    console.error = error;
  }
  assert.deepEqual(calls, ["replay"]);
  model.off(null, null, mine);
  model.set("output", 1);
  assert.deepEqual(calls, ["replay", "cb"]);
  model.off("change:output", cb);
  model.set("output", 2);
  assert.deepEqual(calls, ["replay", "cb"]);
  model.off();
  assert.equal(model.listeners.length, 0);
});

test("save_changes and send need no kernel: nothing is thrown, nothing leaves the page", () => {
  const model = new HostModel(null, "w", saved().w);
  model.set("output", 3);
  model.save_changes();
  assert.deepEqual(model.unsaved, {});
  assert.equal(model.send({ type: "replay", seq: 1 }), undefined);
  assert.equal(model.get("output"), 3);
});

test("widget_manager.get_model resolves every saved model by reference, and rejects a missing one", async () => {
  const manager = new HostManager(saved());
  const widget = await manager.get_model("w");
  assert.equal(widget.widget_manager, manager);
  const assets = await widget.widget_manager.get_model(widget.get("assets"));
  assert.equal(assets.get("code"), "export default {}");
  assert.equal((await manager.get_model("anywidget:l")).name, "LayoutModel");
  await assert.rejects(manager.get_model("IPY_MODEL_gone"), /holds no widget model gone/);
  const host = manager.hostFor(new AbortController().signal);
  assert.equal(await host.getModel("anywidget:a"), assets);
});
