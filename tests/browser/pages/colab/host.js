// A test host that follows Google Colab's documented rules for widgets (facts: shared FRONTENDS.md; Colab's own
// host is closed source, so this emulates it):
// - the host, not the output, talks to the kernel (here a Jupyter server's kernel websocket, its default
//   protocol) and keeps every widget model's state;
// - each widget output is its own page, in its own iframe on another origin (output.html, output.js);
// - an output's get_model(id) is answered only for the models the displayed widget references: itself and the
//   "IPY_MODEL_<id>" strings of its state (widget-serialized traits), and theirs in turn
//   (colab-cdn-widget-manager #24); any other id gets no state, and the output's manager throws Error('not found').
// URL parameters: ws (the kernel channels' websocket URL, token included), output (output.html's URL).
const params = new URLSearchParams(location.search);
const REF = "IPY_MODEL_";
const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";
const session = crypto.randomUUID();
const models = new Map(); // id -> {modelName, modelModule, modelModuleVersion, state}
const frames = new Map(); // output window -> {id: displayed model id, seen: ids it was given}
const running = new Map(); // execute request id -> {outputs, done}
let cells = 0;

function header(type) {
  return { msg_id: crypto.randomUUID(), username: "colab-rules", session, msg_type: type, version: "5.3", date: new Date().toISOString() };
}

// The server's default (legacy) websocket framing: text frames of JSON; binary ones [n][n offsets][JSON][buffers].
function decode(data) {
  if (typeof data === "string") return { ...JSON.parse(data), buffers: [] };
  const view = new DataView(data);
  const n = view.getUint32(0);
  const offsets = Array.from({ length: n }, (_, i) => view.getUint32(4 * (i + 1)));
  const parts = offsets.map((start, i) => data.slice(start, offsets[i + 1] ?? data.byteLength));
  return { ...JSON.parse(new TextDecoder().decode(parts[0])), buffers: parts.slice(1) };
}

function encode(message, buffers) {
  const json = JSON.stringify(message);
  if (!buffers.length) return json;
  const parts = [new TextEncoder().encode(json), ...buffers.map((b) => new Uint8Array(b))];
  const head = 4 * (parts.length + 1);
  const out = new Uint8Array(head + parts.reduce((sum, p) => sum + p.byteLength, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, parts.length);
  let at = head;
  parts.forEach((part, i) => {
    view.setUint32(4 * (i + 1), at);
    out.set(part, at);
    at += part.byteLength;
  });
  return out.buffer;
}

function putBuffers(state, paths, buffers) {
  (paths || []).forEach((path, i) => {
    let obj = state;
    for (const key of path.slice(0, -1)) obj = obj[key];
    obj[path[path.length - 1]] = buffers[i];
  });
  return state;
}

function referenced(root) {
  const seen = new Set([root]);
  const todo = [root];
  const walk = (value) => {
    if (typeof value === "string" && value.startsWith(REF)) {
      const id = value.slice(REF.length);
      if (!seen.has(id)) seen.add(id), todo.push(id);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object" && !(value instanceof ArrayBuffer) && !ArrayBuffer.isView(value)) {
      Object.values(value).forEach(walk);
    }
  };
  while (todo.length) walk(models.get(todo.pop())?.state);
  return seen;
}

const socket = new WebSocket(params.get("ws"));
socket.binaryType = "arraybuffer";
const opened = new Promise((resolve, reject) => {
  socket.onopen = resolve;
  socket.onerror = () => reject(new Error("the kernel's websocket did not open"));
});

function send(channel, type, content, buffers = []) {
  const message = { header: header(type), parent_header: {}, metadata: {}, content, channel, buffers: [] };
  socket.send(encode(message, buffers));
  return message.header.msg_id;
}

function toFrames(id, data, buffers) {
  for (const [win, frame] of frames) if (frame.seen.has(id)) win.postMessage({ type: "comm-msg", id, data, buffers }, "*");
}

function showOutput(cell, content) {
  const widget = content.data?.[WIDGET_VIEW];
  if (widget) {
    const iframe = document.createElement("iframe");
    iframe.dataset.model = widget.model_id;
    iframe.sandbox = "allow-scripts allow-same-origin"; // same origin as itself: output.html's, not the host's
    iframe.src = params.get("output");
    cell.el.append(iframe);
    cell.frames.push(iframe);
    return;
  }
  const pre = document.createElement("pre");
  pre.textContent = content.data?.["text/plain"] ?? content.text ?? "";
  cell.el.append(pre);
}

socket.onmessage = (event) => {
  const msg = decode(event.data);
  const type = msg.header.msg_type;
  const cell = running.get(msg.parent_header?.msg_id);
  const content = msg.content;
  if (type === "comm_open" && content.target_name === "jupyter.widget") {
    const state = putBuffers(content.data.state, content.data.buffer_paths, msg.buffers);
    models.set(content.comm_id, {
      modelName: state._model_name, modelModule: state._model_module, modelModuleVersion: state._model_module_version, state,
    });
  } else if (type === "comm_msg") {
    const data = content.data;
    const model = models.get(content.comm_id);
    if (model && (data.method === "update" || data.method === "echo_update")) {
      Object.assign(model.state, putBuffers(structuredClone(data.state), data.buffer_paths, msg.buffers));
    }
    toFrames(content.comm_id, data, msg.buffers);
  } else if (type === "comm_close") {
    models.delete(content.comm_id);
  } else if (cell && (type === "display_data" || type === "execute_result")) {
    showOutput(cell, content);
  } else if (cell && type === "stream") {
    cell.text.push(content.text);
    showOutput(cell, content);
  } else if (cell && type === "error") {
    cell.text.push(`${content.ename}: ${content.evalue}`);
    showOutput(cell, { text: content.traceback.join("\n") });
  } else if (cell && type === "execute_reply") {
    cell.replied = content.status;
  }
  if (cell && type === "status" && content.execution_state === "idle") cell.idle = true;
  if (cell && cell.idle && cell.replied) cell.done();
};

window.addEventListener("message", (event) => {
  const win = event.source;
  const message = event.data;
  if (message.type === "ready") {
    const iframe = [...document.querySelectorAll("iframe")].find((f) => f.contentWindow === win);
    if (!iframe) return;
    frames.set(win, { id: iframe.dataset.model, seen: new Set() });
    win.postMessage({ type: "render", id: iframe.dataset.model }, "*");
    return;
  }
  const frame = frames.get(win);
  if (!frame) return;
  if (message.type === "model-state") {
    const model = referenced(frame.id).has(message.id) ? models.get(message.id) : undefined;
    if (model) frame.seen.add(message.id);
    win.postMessage({ type: "answer", request: message.request, value: model && structuredClone(model) }, "*");
  } else if (message.type === "comm-send") {
    const { id, data, buffers } = message;
    if (data.method === "update" && models.has(id)) {
      Object.assign(models.get(id).state, putBuffers(structuredClone(data.state), data.buffer_paths, buffers));
    }
    send("shell", "comm_msg", { comm_id: id, data }, buffers);
    win.postMessage({ type: "answer", request: message.request }, "*");
  }
});

// For the tests: run(code) executes one cell and resolves with its text output once the kernel is idle;
// modelIds() lists the ids of the models the host holds.
window.colabHost = {
  async run(code) {
    await opened;
    const el = document.createElement("section");
    el.dataset.cell = String(cells++);
    document.getElementById("cells").append(el);
    const cell = { el, frames: [], text: [], replied: null, idle: false };
    const finished = new Promise((resolve) => (cell.done = () => resolve({ status: cell.replied, text: cell.text.join("") })));
    const id = send("shell", "execute_request", {
      code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: true,
    });
    running.set(id, cell);
    return finished;
  },
  modelIds: () => [...models.keys()],
};
