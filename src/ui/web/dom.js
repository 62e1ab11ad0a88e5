// Small DOM helpers shared by the pages: element creation, tables that keep their sort, and
// actions behind a confirmation that report their outcome.

// h('a', {href: '#'}, 'text', child...): an element; attributes starting with "on" are listeners.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
}

// Runs `action` after the user confirms `question`; shows the outcome in `status` (an element
// with role=status) and returns whether it succeeded.
export async function confirmed(question, action, status) {
  if (!window.confirm(question)) {
    if (status) status.textContent = 'Cancelled.';
    return false;
  }
  if (status) status.textContent = 'Working…';
  try {
    await action();
    if (status) {
      status.textContent = 'Done.';
      status.classList.remove('error');
    }
    return true;
  } catch (e) {
    if (status) {
      status.textContent = `Refused: ${e.message}`;
      status.classList.add('error');
    }
    return false;
  }
}

// A table of `rows` with `columns` [{key, title, num, render(row) -> node|string, sort(row)}];
// clicking a header sorts by it (again: reverses). Keeps its sort across re-renders.
export class SortedTable {
  constructor(columns, sortKey, descending = false) {
    this.columns = columns;
    this.sortKey = sortKey;
    this.descending = descending;
    this.element = h('table');
    this.rows = [];
  }
  render(rows) {
    this.rows = rows;
    const col = this.columns.find((c) => c.key === this.sortKey) || this.columns[0];
    const value = col.sort || ((r) => r[col.key]);
    const sorted = [...rows].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), undefined, {numeric: true});
      return this.descending ? -c : c;
    });
    const head = h('tr', {}, this.columns.map((c) => h('th', {
      class: c.num ? 'num' : '', scope: 'col',
      'aria-sort': c.key === this.sortKey ? (this.descending ? 'descending' : 'ascending') : 'none',
    }, h('button', {type: 'button', onclick: () => {
      this.descending = c.key === this.sortKey ? !this.descending : false;
      this.sortKey = c.key;
      this.render(this.rows);
    }}, c.title))));
    const body = sorted.map((r) => h('tr', {}, this.columns.map((c) =>
      h('td', {class: c.num ? 'num' : ''}, c.render ? c.render(r) : String(r[c.key] ?? ''))),
    ));
    clear(this.element);
    this.element.append(h('thead', {}, head), h('tbody', {}, body));
    return this.element;
  }
}
