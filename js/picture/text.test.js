import { test } from "node:test";
import assert from "node:assert/strict";

import { cleanText } from "./text.js";

// Expected strings: micrograd_widget.picture.dot.clean_text on the same input (checked by hand in Python), except
// for the bidirectional controls, which only the view replaces.
test("cleanText cleans as dot.py's clean_text does", () => {
  assert.equal(cleanText(""), "");
  assert.equal(cleanText("a\nb"), "a \u21b5 b");
  assert.equal(cleanText("a\r\nb"), "a \u21b5 b");
  assert.equal(cleanText("nul\x00here"), "nul\ufffdhere");
  assert.equal(cleanText("  a \t  b  "), "a b");
  assert.equal(cleanText("lone \ud800 surrogate"), "lone \ufffd surrogate");
  assert.equal(cleanText("pair \ud83d\ude00 kept"), "pair \ud83d\ude00 kept");
  assert.equal(cleanText("abcdefghij", 5), "abcd\u2026");
  assert.equal(cleanText("abc d", 5), "abc d");
  assert.equal(cleanText("abc defgh", 5), "abc\u2026");
  assert.equal(cleanText(12), "12");
  assert.equal(cleanText("a\r\nb\u2028c\x00d   e\t"), "a \u21b5 b \u21b5 c\ufffdd e");
  assert.equal(cleanText("x".repeat(50), 40), "x".repeat(39) + "\u2026");
  assert.equal(cleanText("\ud83d\udc4d".repeat(5), 3), "\ud83d\udc4d\ud83d\udc4d\u2026", "code points, as Python counts");
});

test("cleanText shows no bidirectional control raw and cuts long labels", () => {
  assert.equal(cleanText("\u202eevil"), "\ufffdevil");
  assert.equal(cleanText("a\u2066b\u2069c\u200f"), "a\ufffdb\ufffdc\ufffd");
  assert.equal(cleanText("\u05e9\u05dc\u05d5\u05dd"), "\u05e9\u05dc\u05d5\u05dd"); // Hebrew letters stay
  const long = cleanText("x".repeat(10000), 60);
  assert.equal(Array.from(long).length, 60);
  assert.ok(long.endsWith("\u2026"));
  assert.equal(Array.from(cleanText("\ud83d\ude00".repeat(100), 10)).length, 10); // no pair cut in half
});

test("plain ASCII text is kept as it is, and text just past that is still cleaned", () => {
  // The boundary of cleanText's shortcut (printable ASCII, single spaces, none at the ends, within maxChars): each
  // expected string worked out by hand as clean_text gives it.
  assert.equal(cleanText("layers.1.neurons.0 w[3]"), "layers.1.neurons.0 w[3]");
  assert.equal(cleanText("a  b"), "a b");
  assert.equal(cleanText(" a"), "a");
  assert.equal(cleanText("a "), "a");
  assert.equal(cleanText("a\tb"), "a b");
  assert.equal(cleanText("a\x7fb"), "a\ufffdb");
  assert.equal(cleanText("~!"), "~!");
  assert.equal(cleanText("x".repeat(40), 40), "x".repeat(40));
  assert.equal(cleanText("x".repeat(41), 40), "x".repeat(39) + "\u2026");
  assert.equal(cleanText("abcd e", 5), "abcd\u2026");
});
