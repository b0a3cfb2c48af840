// Reproducible build of the browser side into micrograd_widget/static/ (same bytes on every rebuild):
// 1. js/ops.js regenerated from the Python op table (`python -m micrograd_widget.ops`);
// 2. widget.js + widget.css bundled with esbuild (Graphviz-WASM inlined by @viz-js/viz);
// 3. host.js: the exported page's own widget host (micrograd_widget/export.py inlines it).

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

const opsModule = execFileSync(python(), ["-W", "ignore::RuntimeWarning", "-m", "micrograd_widget.ops"], {
  cwd: ROOT,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
});
writeIfChanged(join(JS, "ops.js"), opsModule);

mkdirSync(STATIC, { recursive: true });
// @viz-js/viz embeds Graphviz's WebAssembly as a string of raw bytes; inside anywidget's `_esm` (JSON,
// stored once per widget in a notebook's widget state) each control byte costs six characters (~3 MB).
// Re-encode the same bytes gzip'd and base64'd (~0.5 MB), inflated by the browser's DecompressionStream.
const WASM_START = "function findWasmBinary(){return binaryDecode(";
const WASM_END = ")}function getBinarySync(file){return file}";
const INFLATE =
  "async function mgwInflate(b64){const s=atob(b64),b=new Uint8Array(s.length);" +
  "for(let i=0;i<s.length;i++)b[i]=s.charCodeAt(i);" +
  "const r=new Blob([b]).stream().pipeThrough(new DecompressionStream(\"gzip\"));" +
  "return new Uint8Array(await new Response(r).arrayBuffer())}";
let compacted = 0;
const compactWasm = {
  name: "compact-wasm",
  setup(build) {
    build.onLoad({ filter: /@viz-js[\\/]viz[\\/]dist[\\/]viz\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const start = source.indexOf(WASM_START);
      const end = source.indexOf(WASM_END, start);
      if (start < 0 || end < 0 || source.indexOf(WASM_START, start + 1) >= 0) {
        throw new Error("@viz-js/viz changed how it embeds Graphviz's WebAssembly; update compactWasm in js/build.mjs");
      }
      const literal = source.slice(start + WASM_START.length, end);
      const decode = new Function(`return ${literal}`);
      const text = decode();
      const bytes = Uint8Array.from(text, (ch) => { const c = ch.charCodeAt(0); return ~c >> 8 & c; });
      if (bytes[0] !== 0 || String.fromCharCode(...bytes.slice(1, 4)) !== "asm") throw new Error("the embedded WebAssembly does not start with \\0asm");
      const packed = gzipSync(bytes, { level: 9 }).toString("base64");
      const contents = INFLATE + source.slice(0, start) + `function findWasmBinary(){return mgwInflate("${packed}"` + source.slice(end);
      compacted += 1;
      return { contents, loader: "js" };
    });
  },
};

/** One view's bundle: static/<name>.js (Graphviz-WASM re-encoded) and static/<name>.css (the shared theme first). */
async function bundleView(name) {
  const before = compacted;
  await esbuild.build({
    entryPoints: [join(JS, `${name}.js`)],
    plugins: [compactWasm],
    outfile: join(STATIC, `${name}.js`),
    bundle: true,
    format: "esm",
    target: "es2020",
    minify: true,
    legalComments: "eof",
    charset: "utf8",
    logLevel: "warning",
  });
  if (compacted !== before + 1) throw new Error(`${name}.js: the Graphviz WebAssembly was not re-encoded: did @viz-js/viz move its bundle?`);
  writeIfChanged(join(STATIC, `${name}.css`), readFileSync(join(JS, "theme.css"), "utf8") + "\n" + readFileSync(join(JS, `${name}.css`), "utf8"));
}

await bundleView("widget");
// The training view (micrograd_widget/training.py) has its own bundle.
await bundleView("training");

// The exported page's own widget host (js/host.js; micrograd_widget/export.py inlines it in the page).
await esbuild.build({
  entryPoints: [join(JS, "host.js")],
  outfile: join(STATIC, "host.js"),
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "eof",
  charset: "utf8",
  logLevel: "warning",
});

