// @ts-check
// User strings (labels, scopes, op symbols, fold titles) as plain text the view can show: THE cleaning, the
// same function as micrograd_widget/picture/text.py's clean_text (the DOT that js/picture/dot.js writes must be
// byte-identical to Python's), so the picture, the tables and the controls agree. Newlines read as " ↵ ",
// control characters, lone surrogates, non-characters and the bidirectional controls (LRM, RLM, ALM, the
// embeddings, overrides and isolates: shown raw they reorder the text around them) as U+FFFD, runs of
// spaces/tabs as one space, trimmed, and cut to `maxChars` with "…".

// eslint-disable-next-line no-control-regex -- control characters are exactly what these replace
const NEWLINES = /\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]/g;
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const SPACES = /[ \t]+/g;
// Text the cleaning leaves as it is: printable ASCII, words apart by one space, none at either end (most labels, op
// symbols, scopes and fold titles). Writing the DOT of the moons loss at node_budget=2000 cleans ~7,000 strings.
const CLEAN_ASCII = /^[!-~](?:[!-~]| (?=[!-~]))*$/;

/**
 * `text` cleaned for display (see above), at most `maxChars` characters (code points) when given.
 * @param {unknown} text
 * @param {number | null} [maxChars]
 * @returns {string}
 */
export function cleanText(text, maxChars = null) {
  if (text === "" || text === null || text === undefined) return "";
  if (typeof text === "string" && (maxChars === null || text.length <= maxChars) && CLEAN_ASCII.test(text)) return text;
  let s = String(text).replace(NEWLINES, " \u21b5 ").replace(UNPRINTABLE, "\ufffd").replace(SPACES, " ");
  s = s.replace(/^ +| +$/g, "");
  if (maxChars !== null) {
    const chars = Array.from(s);
    if (chars.length > maxChars) s = chars.slice(0, Math.max(maxChars - 1, 0)).join("").replace(/ +$/, "") + "\u2026";
  }
  return s;
}

/**
 * `text` with its first letter upper case: a note or message starting a sentence ("neuron layers.0..." -> "Neuron ...").
 * @param {string} text
 * @returns {string}
 */
export function capitalize(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
