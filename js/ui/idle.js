// @ts-check
// Work for later: when the page is idle (requestIdleCallback where the browser has it, Chromium and Firefox, else a
// timer: Safari has none), or just after the next frame is painted.

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

/**
 * Run `fn` just after the next frame is painted (its animation frame, then a task): work that the frame showing a
 * change need not wait for. Returns a function that cancels it.
 * @param {() => void} fn
 * @returns {() => void}
 */
export function afterFrame(fn) {
  let timer = 0;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(fn, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}
