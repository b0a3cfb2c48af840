// Reproducible build of the browser side into micrograd_widget/static/ (same bytes on every rebuild):
// 1. js/core/ops.js regenerated from the Python op table (`python -m micrograd_widget.core.ops`), js/core/shared.js from the facts
//    both languages share (`python -m micrograd_widget.core.shared`);
// 2. views.js: both views (widget.js, training.js) in one bundle, with @viz-js/viz's inlined WebAssembly
//    cut out (its findWasmBinary() asks js/host/graphviz-wasm.js, which js/host/loader.js feeds);
// 3. graphviz.wasm.gz: that WebAssembly, once, gzip'd, and views.css, both views' CSS (micrograd_widget/host/assets.py
//    ships the three in the shared assets model); loader.js: each widget's small `_esm`;
// 4. host.js: the exported page's own widget host (micrograd_widget/host/export.py inlines it).

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const JS = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(JS);
const STATIC = join(ROOT, "micrograd_widget", "static");

function python() {
  if (process.env.PYTHON) return process.env.PYTHON;
  const venv = join(ROOT, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

function writeIfChanged(path, text) {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  writeFileSync(path, text);
}

for (const [module, file] of [["micrograd_widget.core.ops", "core/ops.js"], ["micrograd_widget.core.shared", "core/shared.js"]]) {
  const generated = execFileSync(python(), ["-W", "ignore::RuntimeWarning", "-m", module], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  writeIfChanged(join(JS, file), generated);
}

mkdirSync(STATIC, { recursive: true });

function writeBytesIfChanged(path, bytes) {
  if (existsSync(path) && Buffer.compare(readFileSync(path), bytes) === 0) return;
  writeFileSync(path, bytes);
}

// @viz-js/viz embeds Graphviz's WebAssembly as a string of raw bytes decoded by findWasmBinary(). The views
// bundle must not carry it (it travels once, as a binary buffer): the plugin cuts the string out, keeps the
// bytes for graphviz.wasm.gz, and makes findWasmBinary() return what js/host/graphviz-wasm.js was given.
const WASM_START = "function findWasmBinary(){return binaryDecode(";
const WASM_END = ")}function getBinarySync(file){return file}";
const WASM_SOURCE = join(JS, "host", "graphviz-wasm.js");
let wasm = null;
const externalWasm = {
  name: "external-wasm",
  setup(build) {
    build.onLoad({ filter: /@viz-js[\\/]viz[\\/]dist[\\/]viz\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const start = source.indexOf(WASM_START);
      const end = source.indexOf(WASM_END, start);
      if (start < 0 || end < 0 || source.indexOf(WASM_START, start + 1) >= 0) {
        throw new Error("@viz-js/viz changed how it embeds Graphviz's WebAssembly; update externalWasm in js/build.mjs");
      }
      const literal = source.slice(start + WASM_START.length, end);
      const text = new Function(`return ${literal}`)();
      const bytes = Uint8Array.from(text, (ch) => { const c = ch.charCodeAt(0); return ~c >> 8 & c; });
      if (bytes[0] !== 0 || String.fromCharCode(...bytes.slice(1, 4)) !== "asm") throw new Error("the embedded WebAssembly does not start with \\0asm");
      wasm = bytes;
      const contents = `import { wasmBytes as mgwWasmBytes } from ${JSON.stringify(WASM_SOURCE)};\n` +
        source.slice(0, start) + "function findWasmBinary(){return mgwWasmBytes(" + source.slice(end);
      return { contents, loader: "js" };
    });
  },
};

const OPTIONS = { bundle: true, format: "esm", target: "es2020", minify: true, legalComments: "eof", charset: "utf8", logLevel: "warning" };

// The views bundle (both views; Graphviz without its WebAssembly) and the WebAssembly itself, once.
await esbuild.build({ ...OPTIONS, entryPoints: [join(JS, "host", "views.js")], plugins: [externalWasm], outfile: join(STATIC, "views.js") });
if (wasm === null) throw new Error("views.js: Graphviz's WebAssembly was not cut out: did @viz-js/viz move its bundle?");
if (readFileSync(join(STATIC, "views.js"), "utf8").includes("binaryDecode(\"")) throw new Error("views.js still inlines a WebAssembly");
writeBytesIfChanged(join(STATIC, "graphviz.wasm.gz"), gzipSync(wasm, { level: 9 }));
// Each widget's own `_esm`: small, no dependencies.
await esbuild.build({ ...OPTIONS, entryPoints: [join(JS, "host", "loader.js")], outfile: join(STATIC, "loader.js") });
// The exported page's own widget host (js/host/host.js; micrograd_widget/host/export.py inlines it in the page).
await esbuild.build({ ...OPTIONS, entryPoints: [join(JS, "host", "host.js")], outfile: join(STATIC, "host.js") });
// Both views' CSS (the shared theme first), travelling with their code in the shared assets model.
const css = (name) => readFileSync(join(JS, `${name}.css`), "utf8");
writeIfChanged(join(STATIC, "views.css"), [css("ui/theme"), css("graph/widget"), css("training/widget")].join("\n"));
// Files of earlier builds (one bundle and one CSS per view, each bundle with its own WebAssembly) are gone.
for (const stale of ["widget.js", "training.js", "widget.css", "training.css"]) rmSync(join(STATIC, stale), { force: true });

