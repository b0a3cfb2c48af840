// One output of the Colab-rules host (host.js): the page Colab puts in each output's sandboxed iframe, with
// Colab's widget manager rules (googlecolab/colab-cdn-widget-manager src/manager.ts and amd.ts):
// - get_model(id) asks the host for that model's state and throws Error('not found') when the host has none (the
//   host gives only the models the displayed widget references); a failed id stays failed, as Colab caches it;
// - a widget module is an AMD script fetched as text and run with `define` (Colab fetches
//   cdn.jsdelivr.net/npm/<module>@<version>/dist/index.js; here the installed anywidget package's own
//   nbextension/index.js, served at /modules/<module>/index.js), with @jupyter-widgets/base defined by the manager;
// - a model's comm is the host's channel (postMessage here); a send reports "idle" once it has gone out.
// Bundled with esbuild by tests/browser/mgw_browser/colab.py (the imports are js/node_modules' packages).
import * as base from "@jupyter-widgets/base";
import { ManagerBase } from "@jupyter-widgets/base-manager";
import { Widget } from "@lumino/widgets";

const host = window.parent;
let requests = 0;
const answers = new Map();
const comms = new Map();

function ask(message) {
  const request = ++requests;
  host.postMessage({ ...message, request }, "*");
  return new Promise((resolve) => answers.set(request, resolve));
}

function copyOf(buffer) {
  return ArrayBuffer.isView(buffer)
    ? buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength)
    : buffer;
}

class HostComm {
  constructor(id) {
    this.comm_id = id;
    this.target_name = "";
    this.handlers = [];
    this.closers = [];
    comms.set(id, this);
  }

  open() {
    throw new Error("comms are opened by the kernel in this host");
  }

  send(data, callbacks, _metadata, buffers) {
    // As Colab's ClassicComm: a JSON round trip drops what a channel cannot carry; "idle" once sent.
    const clean = JSON.parse(JSON.stringify(data));
    ask({ type: "comm-send", id: this.comm_id, data: clean, buffers: (buffers || []).map(copyOf) }).then(() =>
      callbacks?.iopub?.status?.({ content: { execution_state: "idle" } }),
    );
    return "";
  }

  close() {
    host.postMessage({ type: "comm-close", id: this.comm_id }, "*");
    return "";
  }

  on_msg(callback) {
    this.handlers.push(callback);
  }

  on_close(callback) {
    this.closers.push(callback);
  }

  receive(data, buffers) {
    const views = (buffers || []).map((b) => new Uint8Array(b));
    for (const handler of this.handlers) handler({ content: { comm_id: this.comm_id, data }, buffers: views });
  }
}

const modules = new Map([["@jupyter-widgets/base", Promise.resolve(base)]]);

function load(name) {
  let loaded = modules.get(name);
  if (!loaded) {
    loaded = (async () => {
      const url = new URL(`/modules/${name}/index.js`, location.href);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`no widget module ${name} (${response.status})`);
      let definition;
      const define = (first, second, third) => {
        definition = typeof first === "string" ? { deps: second, factory: third } : { deps: first, factory: second };
      };
      new Function("define", `${await response.text()}\n//# sourceURL=${url}`)(define);
      if (!definition) throw new Error(`${name} defined no AMD module`);
      const deps = await Promise.all(definition.deps.map(load));
      return definition.factory(...deps);
    })();
    modules.set(name, loaded);
  }
  return loaded;
}

class ColabRulesManager extends ManagerBase {
  #models = new Map();

  async loadClass(className, moduleName) {
    const found = (await load(moduleName))[className];
    if (!found) throw new Error(`${moduleName} has no ${className}`);
    return found;
  }

  async _create_comm() {
    throw new Error("this host opens no comm from the page");
  }

  async _get_comm_info() {
    throw new Error("Method not implemented.");
  }

  get_model(id) {
    let model = this.#models.get(id);
    if (model) return model;
    model = (async () => {
      const state = await ask({ type: "model-state", id });
      if (!state) throw new Error("not found");
      const { buffer_paths, buffers } = base.remove_buffers(state.state);
      base.put_buffers(state.state, buffer_paths, buffers);
      return this.new_model(
        {
          model_name: state.modelName,
          model_module: state.modelModule,
          model_module_version: state.modelModuleVersion,
          model_id: id,
          comm: new HostComm(id),
        },
        state.state,
      );
    })();
    this.#models.set(id, model);
    return model;
  }
}

const manager = new ColabRulesManager();

async function render(id) {
  const model = await manager.get_model(id);
  const view = await manager.create_view(model);
  Widget.attach(view.luminoWidget, document.getElementById("output"));
  document.body.dataset.rendered = id;
}

window.addEventListener("message", (event) => {
  if (event.source !== host) return;
  const message = event.data;
  if (message.type === "answer") {
    answers.get(message.request)?.(message.value);
    answers.delete(message.request);
  } else if (message.type === "comm-msg") {
    comms.get(message.id)?.receive(message.data, message.buffers);
  } else if (message.type === "render") {
    render(message.id).catch((err) => {
      document.body.dataset.renderError = String(err?.message ?? err);
    });
  }
});

// For the tests: what this output's manager answers for a model id ("found" or the error's message).
window.colabRules = {
  lookup: (id) => manager.get_model(id).then(() => "found", (err) => String(err?.message ?? err)),
};
host.postMessage({ type: "ready" }, "*");
