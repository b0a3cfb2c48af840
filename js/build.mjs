// Reproducible build of the browser side into micrograd_widget/static/ (same bytes on every rebuild):
// 1. js/ops.js regenerated from the Python op table (`python -m micrograd_widget.ops`);
// 2. widget.js + widget.css bundled with esbuild (Graphviz-WASM inlined by @viz-js/viz);
// 3. the static export's offline assets copied from their npm packages (see micrograd_widget/export.py).

import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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
await esbuild.build({
  entryPoints: [join(JS, "widget.js")],
  outfile: join(STATIC, "widget.js"),
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "eof",
  charset: "utf8",
  logLevel: "warning",
});
copyFileSync(join(JS, "widget.css"), join(STATIC, "widget.css"));

// Offline assets for save_html: require.js, the ipywidgets HTML manager (AMD) and anywidget's AMD build.
// Source-map comments are dropped: the maps are not shipped and the page must make no extra request.
const stripMaps = (text) => text.replace(/^\/\/# sourceMappingURL=.*$/gm, "");
const modules = join(JS, "node_modules");
const assets = {
  "require.js": join(modules, "requirejs", "require.js"),
  "embed-amd.js": join(modules, "@jupyter-widgets", "html-manager", "dist", "embed-amd.js"),
  "anywidget-amd.js": join(modules, "anywidget", "dist", "index.js"),
};
for (const [name, source] of Object.entries(assets)) {
  writeIfChanged(join(STATIC, name), stripMaps(readFileSync(source, "utf8")));
}
