// @ts-check
// Work for when the page is idle: requestIdleCallback where the browser has it (Chromium, Firefox), else a timer
// (Safari has no requestIdleCallback).

/**
 * Run `fn` when the page is idle (at the latest after `timeout` ms), or after `fallbackMs` where the browser
 * has no idle callbacks; returns a function that cancels it.
 * @param {() => void} fn
 * @param {number} timeout
 * @param {number} fallbackMs
 * @returns {() => void}
 */
export function whenIdle(fn, timeout, fallbackMs) {
  if (typeof requestIdleCallback === "function") {
    const id = requestIdleCallback(fn, { timeout });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, fallbackMs);
  return () => clearTimeout(id);
}
