// The JS linter (`npm --prefix js run lint`): ESLint's recommended rules plus a few that keep the code
// modern and honest, over every source file in js/ (node_modules and the built bundles are not ours).

import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/**"] },
  js.configs.recommended,
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-unused-vars": ["error", { args: "none" }], // the op table's functions share one signature
      "no-implicit-globals": "error",
      "no-restricted-properties": [
        "error",
        { property: "innerHTML", message: "No user string may reach innerHTML: build nodes with dom.js's h()." },
        { property: "outerHTML", message: "No user string may reach outerHTML: build nodes with dom.js's h()." },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "CallExpression[callee.property.name='insertAdjacentHTML']", message: "Build nodes with dom.js's h()." },
      ],
    },
  },
  {
    files: ["build.mjs", "eslint.config.js", "**/*.test.js", "**/*.fixture.js"],
    languageOptions: { globals: { ...globals.node } },
  },
];
