// The one way the view builds HTML: elements from createElement, text from textContent, never innerHTML,
// so no user string (labels, scopes) is ever parsed as markup.

/** `<tag>` with attributes from `props` (`className`, `text` = textContent, booleans as present/absent) and children. */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "className") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}
