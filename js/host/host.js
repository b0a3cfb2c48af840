// @ts-check
// The exported page's own widget host (micrograd_widget/host/export.py writes the page; js/build.mjs bundles this
// file into static/host.js, which the page carries inline as a module script). It replaces ipywidgets' HTML
// manager (3.6 MB) and require.js with the small part of the anywidget model interface our views use, over
// the widget state saved in the page: the page, the interface and the rendering are js/host/host-contract.md, and
// the types below say the same in JSDoc. No user string is ever parsed as markup here.

/**
 * One binary buffer saved in the page's widget state.
 * @typedef {object} SavedBuffer
 * @property {(string | number)[]} path where it goes in the model's state
 * @property {string} data its bytes, base64 (or hex)
 * @property {string} [encoding] "base64" (the default) or "hex"
 */

/**
 * One model of the page's saved widget state.
 * @typedef {object} SavedModel
 * @property {string} [model_name]
 * @property {string} [model_module]
 * @property {Record<string, unknown>} [state]
 * @property {SavedBuffer[]} [buffers]
 */

/**
 * The part of anywidget's model interface our views and the loader use (js/host/host-contract.md): what HostModel
 * implements here and a notebook's widget manager provides in a kernel.
 * @typedef {object} WidgetModel
 * @property {(name: string) => any} get a trait's value (binary traits as DataViews)
 * @property {(name: string | Record<string, unknown>, value?: unknown) => void} set
 * @property {(events: string, callback: (...args: any[]) => void, context?: unknown) => void} on
 * @property {(events?: string | null, callback?: ((...args: any[]) => void) | null, context?: unknown) => void} off
 * @property {() => void} save_changes
 * @property {(content: unknown, callbacks?: unknown, buffers?: unknown) => void} send
 * @property {{get_model: (ref: string) => Promise<WidgetModel>}} widget_manager
 */

/** @typedef {{event: string, callback: (...args: any[]) => void, context: unknown}} Listener */

/** @typedef {{widget: any, exports: object | undefined}} LoadedWidget */

/**
 * anywidget's `host` (composition) as render() receives it.
 * @typedef {object} HostInterface
 * @property {(ref: string) => Promise<HostModel>} getModel
 * @property {(ref: string) => Promise<{exports: object | undefined, render: (how: {el: HTMLElement, signal?: AbortSignal}) => Promise<void>}>} getWidget
 */

const STATE_TYPE = "application/vnd.jupyter.widget-state+json";
const VIEW_TYPE = "application/vnd.jupyter.widget-view+json";
const REFERENCE = /^(?:IPY_MODEL_|anywidget:)(.+)$/;

/**
 * The model id in `ref`: "IPY_MODEL_<id>", "anywidget:<id>" or a bare id.
 * @param {unknown} ref
 * @returns {string}
 */
export function modelIdOf(ref) {
  if (typeof ref !== "string" || !ref) throw new Error(`not a widget reference: ${JSON.stringify(ref)}`);
  const m = REFERENCE.exec(ref);
  return m ? m[1] : ref;
}

/**
 * Bytes of a saved buffer (`encoding` "base64", the default, or "hex").
 * @param {string} data
 * @param {string} [encoding]
 * @returns {Uint8Array}
 */
export function decodeBuffer(data, encoding = "base64") {
  if (encoding === "hex") {
    if (data.length % 2 || /[^0-9a-f]/i.test(data)) throw new Error("a saved buffer is not hex");
    const bytes = new Uint8Array(data.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(data.substr(2 * i, 2), 16);
    return bytes;
  }
  if (encoding !== "base64") throw new Error(`a saved buffer has an unknown encoding: ${encoding}`);
  const text = atob(data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/**
 * `state` with each saved buffer put at its path as a DataView (ipywidgets' put_buffers).
 * @param {Record<string, any>} state
 * @param {SavedBuffer[]} [buffers]
 * @returns {Record<string, any>}
 */
export function putBuffers(state, buffers = []) {
  for (const { path, data, encoding } of buffers) {
    if (!Array.isArray(path) || path.length === 0) throw new Error("a saved buffer has no path");
    let holder = state;
    for (const key of path.slice(0, -1)) {
      if (holder[key] === null || typeof holder[key] !== "object") throw new Error(`a saved buffer's path is missing: ${path.join(".")}`);
      holder = holder[key];
    }
    const bytes = decodeBuffer(data, encoding);
    holder[path[path.length - 1]] = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return state;
}

/**
 * @param {ArrayBufferView} a
 * @param {ArrayBufferView} b
 * @returns {boolean}
 */
function sameBytes(a, b) {
  if (a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * Deep equality as Backbone's set uses it (underscore's isEqual: NaN equals NaN, 0 differs from -0).
 * @param {any} a
 * @param {any} b
 * @returns {boolean}
 */
export function sameValue(a, b) {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) return ArrayBuffer.isView(a) && ArrayBuffer.isView(b) && sameBytes(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue(a[k], b[k]));
}

/** One saved widget model, with the interface anywidget's views see. */
export class HostModel {
  /**
   * @param {HostManager} manager
   * @param {string} id
   * @param {SavedModel} saved
   */
  constructor(manager, id, saved) {
    this.model_id = id;
    this.widget_manager = manager;
    this.name = saved.model_name || "";
    this.module = saved.model_module || "";
    this.state = putBuffers({ ...(saved.state || {}) }, saved.buffers);
    /** @type {Listener[]} */
    this.listeners = [];
    /** @type {Record<string, unknown>} */
    this.unsaved = {};
    /** This page has no kernel: a view refuses at once what only a kernel can do, rather than wait for an answer. */
    this.hasKernel = false;
  }

  /**
   * @param {string} name
   * @returns {any}
   */
  get(name) {
    return this.state[name];
  }

  /**
   * set(name, value) or set({name: value, ...}): changed values fire "change:<name>", then "change" once.
   * @param {string | Record<string, unknown>} name
   * @param {unknown} [value]
   */
  set(name, value) {
    // a cast: a name here (strict checking narrows it so; the views' looser check, which reaches this file, does not)
    const changes = name !== null && typeof name === "object" ? name : { [/** @type {string} */ (name)]: value };
    /** @type {string[]} */
    const changed = [];
    for (const [key, v] of Object.entries(changes)) {
      if (sameValue(this.state[key], v)) continue;
      this.state[key] = v;
      this.unsaved[key] = v;
      changed.push(key);
    }
    for (const key of changed) this.trigger(`change:${key}`, this, this.state[key]);
    if (changed.length) this.trigger("change", this);
  }

  /**
   * Listen to `events` (space-separated names); `context` lets off() remove a group of listeners at once.
   * @param {string} events
   * @param {Listener["callback"]} callback
   * @param {unknown} [context]
   */
  on(events, callback, context) {
    if (typeof callback !== "function") return;
    for (const event of String(events).split(/\s+/).filter(Boolean)) this.listeners.push({ event, callback, context });
  }

  /**
   * Stop listening: any of `events`, `callback`, `context` left null matches every listener.
   * @param {string | null} [events]
   * @param {Listener["callback"] | null} [callback]
   * @param {unknown} [context]
   */
  off(events, callback, context) {
    const names = events ? String(events).split(/\s+/).filter(Boolean) : null;
    this.listeners = this.listeners.filter((l) =>
      !((!names || names.includes(l.event)) && (!callback || l.callback === callback) && (context == null || l.context === context)));
  }

  /**
   * @param {string} event
   * @param {...unknown} args
   */
  trigger(event, ...args) {
    for (const l of this.listeners.filter((x) => x.event === event)) {
      try {
        l.callback.apply(l.context ?? this, args);
      } catch (err) {
        console.error(err);
      }
    }
  }

  /** There is no kernel to save to: the changes stay in this page. */
  save_changes() {
    this.unsaved = {};
  }

  /**
   * There is no kernel to send to; ipywidgets' managers drop a message sent without a comm, and so does this page.
   * @param {unknown} content
   * @param {unknown} [callbacks]
   * @param {unknown} [buffers]
   */
  send(content, callbacks, buffers) {}
}

/** The models of the page's saved state, reachable by id as anywidget's `model.widget_manager`. */
export class HostManager {
  /**
   * @param {Record<string, SavedModel>} [saved]
   */
  constructor(saved = {}) {
    /** @type {Map<string, HostModel>} */
    this.models = new Map();
    for (const [id, model] of Object.entries(saved)) this.models.set(id, new HostModel(this, id, model));
    /** @type {Map<HostModel, Promise<LoadedWidget>>} */
    this.widgets = new Map();
  }

  /**
   * The model `ref` names ("IPY_MODEL_<id>", "anywidget:<id>" or its id), rejected when the page does not hold it.
   * @param {string} ref
   * @returns {Promise<HostModel>}
   */
  async get_model(ref) {
    return this.model(ref);
  }

  /**
   * @param {string} ref
   * @returns {HostModel}
   */
  model(ref) {
    const id = modelIdOf(ref);
    const model = this.models.get(id);
    if (!model) throw new Error(`the page holds no widget model ${id}`);
    return model;
  }

  /**
   * The model's widget definition, its module imported and initialize() run once per model.
   * @param {HostModel} model
   * @returns {Promise<LoadedWidget>}
   */
  widget(model) {
    let pending = this.widgets.get(model);
    if (!pending) {
      pending = loadWidget(model, this);
      this.widgets.set(model, pending);
    }
    return pending;
  }

  /**
   * Render `model`'s view into `el`; resolves when render has returned.
   * @param {HostModel} model
   * @param {HTMLElement} el
   * @param {AbortSignal} signal
   * @returns {Promise<void>}
   */
  async render(model, el, signal) {
    const { widget } = await this.widget(model);
    if (typeof widget.render !== "function") throw new Error(`the widget ${model.model_id} has no render()`);
    const host = this.hostFor(signal);
    const cleanup = await widget.render({ model, el, signal, host, experimental: { invoke: noKernel } });
    if (typeof cleanup === "function") signal.addEventListener("abort", () => cleanup(), { once: true });
  }

  /**
   * anywidget's `host` (composition): another model, or another widget to render, by reference.
   * @param {AbortSignal} signal
   * @returns {HostInterface}
   */
  hostFor(signal) {
    return {
      getModel: async (ref) => this.model(ref),
      getWidget: async (ref) => {
        const model = this.model(ref);
        const { exports } = await this.widget(model);
        return { exports, render: ({ el, signal: own }) => this.render(model, el, own ?? signal) };
      },
    };
  }
}

async function noKernel() {
  throw new Error("this page has no kernel");
}

const styled = new Set();

/**
 * @param {unknown} css
 * @param {string} key
 */
function addStyle(css, key) {
  if (typeof css !== "string" || !css || styled.has(key)) return;
  styled.add(key);
  const style = document.createElement("style");
  style.setAttribute("data-anywidget", key);
  style.textContent = css;
  document.head.append(style);
}

/**
 * @param {string} code
 * @returns {Promise<any>}
 */
async function importText(code) {
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  try {
    return await import(/* @vite-ignore */ url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * `{widget, exports}` of an anywidget model: its `_esm` imported, `_css` added, initialize() run.
 * @param {HostModel} model
 * @param {HostManager} manager
 * @returns {Promise<LoadedWidget>}
 */
async function loadWidget(model, manager) {
  const code = model.get("_esm");
  if (typeof code !== "string" || !code) throw new Error(`the widget ${model.model_id} carries no code (_esm)`);
  addStyle(model.get("_css"), String(model.get("_anywidget_id") || model.model_id));
  const mod = await importText(code);
  let widget = mod.default ?? mod;
  if (typeof widget === "function") widget = await widget();
  if (widget === null || typeof widget !== "object") throw new Error(`the widget ${model.model_id}'s code exports no widget`);
  const signal = new AbortController().signal;
  const result = typeof widget.initialize === "function"
    ? await widget.initialize({ model, signal, experimental: { invoke: noKernel } })
    : undefined;
  const exports = result !== null && typeof result === "object" ? result : undefined;
  return { widget, exports };
}

/**
 * @param {HTMLScriptElement} script
 * @returns {any}
 */
function readJson(script) {
  try {
    return JSON.parse(script.textContent);
  } catch (err) {
    const bad = /** @type {SyntaxError} */ (err); // what JSON.parse throws
    throw new Error(`the page's ${script.type} is not JSON: ${bad.message}`);
  }
}

/**
 * The document's `<script type="{type}">` elements.
 * @param {Document} doc
 * @param {string} type
 * @returns {NodeListOf<HTMLScriptElement>}
 */
function scripts(doc, type) {
  // a cast: the selector matches script elements only, which tsc cannot tell from a string built at run time
  return /** @type {NodeListOf<HTMLScriptElement>} */ (doc.querySelectorAll(`script[type="${type}"]`));
}

/**
 * Render every view the document asks for, each just before its view script; resolves when all are shown
 * (or have said why not, in place).
 * @param {Document} [doc]
 * @returns {Promise<HostManager>}
 */
export async function start(doc = document) {
  /** @type {Record<string, SavedModel>} */
  const saved = {};
  for (const script of scripts(doc, STATE_TYPE)) Object.assign(saved, readJson(script).state || {});
  const manager = new HostManager(saved);
  const views = [...scripts(doc, VIEW_TYPE)].map(async (script) => {
    const el = doc.createElement("div");
    el.className = "mgw-host-view";
    script.before(el);
    try {
      const spec = readJson(script);
      el.setAttribute("data-model-id", String(spec.model_id));
      await manager.render(manager.model(spec.model_id), el, new AbortController().signal);
    } catch (err) {
      console.error(err);
      const note = doc.createElement("p");
      note.className = "mgw-host-error";
      note.setAttribute("role", "alert");
      // a view's code may throw anything: its message when it has one, else the thing itself
      const why = /** @type {{message?: unknown} | null | undefined} */ (err)?.message || err;
      note.textContent = `This widget could not be shown: ${why}`;
      el.append(note);
    }
  });
  await Promise.all(views);
  return manager;
}

if (typeof document !== "undefined" && document.querySelector(`script[type="${VIEW_TYPE}"]`)) {
  // the page's host, for a console or a test (a cast: Window does not declare it)
  /** @type {Window & {mgwHost?: Promise<HostManager>}} */ (window).mgwHost = start();
}
