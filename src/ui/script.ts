/**
 * The memory browser's script, inlined in the page under its nonce. Plain browser JavaScript
 * (no template literals: it lives in one) that builds every element with the DOM API, never
 * from HTML strings, so no memory text can become markup. The launch token arrives after `#` in
 * the address (never sent to a server); the script keeps it in `sessionStorage` (this origin's,
 * port included: another web server on this host cannot read it, as it could a cookie), takes
 * it off the address, and sends it as the `x-agent-memory-token` header on every call. Event
 * streams are read with `fetch` (an `EventSource` cannot send a header).
 */
export const UI_SCRIPT = String.raw`
'use strict';
const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v; else if (k === 'text') node.textContent = v; else if (k.startsWith('on')) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) node.append(kid);
  return node;
};
// An observation opens with its group's name as markdown bold (**Deploys** (2 facts)): a line
// that starts so is drawn as a heading, its name set as text, so it never becomes markup.
const withHeadings = (node, text) => {
  const lines = String(text || '').split('\n');
  lines.forEach((line, i) => {
    const bold = /^\*\*(.+?)\*\*(.*)$/.exec(line);
    if (bold) node.append(el('strong', { class: 'heading', text: bold[1] }), bold[2]); else node.append(line);
    if (i < lines.length - 1) node.append('\n');
  });
  return node;
};
const notice = (text, ok) => { const n = $('notice'); n.hidden = !text; n.textContent = text || ''; n.className = ok ? 'ok' : ''; };
// The token: taken from the launch address's fragment (#token=…, beside an optional tab name:
// #machines&token=…), kept for this tab in sessionStorage, and taken off the address. A launch
// address opened over this page (only its fragment changes: no new load) loads the page afresh.
const TOKEN_KEY = 'agent-memory-token';
const takeToken = () => {
  const parts = location.hash.replace(/^#/, '').split(/[&#]/).filter((p) => p !== '');
  const given = parts.find((p) => p.startsWith('token='));
  if (given === undefined) return false;
  sessionStorage.setItem(TOKEN_KEY, given.slice('token='.length));
  const rest = parts.filter((p) => !p.startsWith('token='));
  history.replaceState(null, '', location.pathname + location.search + (rest.length ? '#' + rest.join('&') : ''));
  return true;
};
takeToken();
window.addEventListener('hashchange', () => { if (takeToken()) location.reload(); });
// A tab opened on /ui/ without the address (a new tab, a bookmark, another window) asks this
// page's open tabs for the token. A BroadcastChannel reaches only documents of this origin
// (port included) in this browser profile, and this origin serves no document but this page:
// nothing is stored beyond each tab's sessionStorage, nothing goes in a cookie or an address.
// With no tab open to answer, the server's refusal names the file that holds the address.
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('agent-memory-token') : null;
let handedToken = null;
if (channel) channel.addEventListener('message', (e) => {
  const m = e.data || {};
  const mine = sessionStorage.getItem(TOKEN_KEY);
  if (m.type === 'ask' && mine) channel.postMessage({ type: 'give', token: mine });
  else if (m.type === 'give' && typeof m.token === 'string' && m.token !== '' && handedToken) handedToken(m.token);
});
const tokenReady = new Promise((resolve) => {
  if (sessionStorage.getItem(TOKEN_KEY) || !channel) { resolve(); return; }
  const timer = setTimeout(() => { handedToken = null; resolve(); }, 500);
  handedToken = (token) => { handedToken = null; clearTimeout(timer); sessionStorage.setItem(TOKEN_KEY, token); resolve(); };
  channel.postMessage({ type: 'ask' });
});
const tokenHeaders = () => ({ 'x-agent-memory-token': sessionStorage.getItem(TOKEN_KEY) || '' });
// Refused for want of this launch's token, the server names where the address is (its 0600
// file); this is said only when its answer cannot be read.
const NO_TOKEN = 'This tab has no launch token: open the address printed in the terminal that started this memory browser (it ends in #token=…).';
const refusal = (res, data) => { const d = data && data.detail; return typeof d === 'string' ? d : res.status === 401 ? NO_TOKEN : 'HTTP ' + res.status; };
const api = async (path, body) => {
  const res = await fetch(path, body === undefined ? { headers: tokenHeaders() } : { method: 'POST', headers: { ...tokenHeaders(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (res.status === 401) throw new Error(refusal(res, data));
  if (!res.ok) { const d = data && data.detail; throw new Error(typeof d === 'string' ? d : JSON.stringify(d || ('HTTP ' + res.status))); }
  return data;
};
// A server-sent event stream read with fetch, so that it carries the token header. Listeners get
// { data } per event, as an EventSource's would; a dropped stream is opened again after 2 s, one
// refused (401, 403) is not.
const stream = (path) => {
  const listeners = {};
  const controller = new AbortController();
  let closed = false;
  const dispatchBlock = (block) => {
    let event = 'message'; const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) for (const listener of listeners[event] || []) listener({ data: data.join('\n') });
  };
  const read = async () => {
    while (!closed) {
      try {
        const res = await fetch(path, { headers: tokenHeaders(), signal: controller.signal });
        if (res.status === 401 || res.status === 403) { const d = await res.json().catch(() => ({})); notice(refusal(res, d)); return; }
        if (!res.ok || !res.body) throw new Error('HTTP ' + res.status);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) { dispatchBlock(buffer.slice(0, end)); buffer = buffer.slice(end + 2); }
        }
      } catch (err) {
        if (closed) return;
      }
      if (!closed) await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  };
  read();
  return {
    addEventListener: (event, listener) => { (listeners[event] = listeners[event] || []).push(listener); },
    close: () => { closed = true; controller.abort(); },
  };
};
const ask = (text, withInput, initial) => new Promise((resolve) => {
  const d = $('confirm');
  $('confirm-text').textContent = text;
  const input = $('confirm-input');
  input.hidden = !withInput; input.value = initial || '';
  d.returnValue = '';
  d.addEventListener('close', () => resolve(d.returnValue === 'ok' ? (withInput ? input.value : true) : null), { once: true });
  d.showModal();
});
const short = (s, n) => (s && s.length > n ? s.slice(0, n) + '…' : s || '');
const day = (s) => (s ? String(s).slice(0, 19).replace('T', ' ') : '');

// ---------------------------------------------------------------- tabs
for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => {
  for (const x of document.querySelectorAll('#tabs button')) x.classList.toggle('on', x === b);
  for (const t of document.querySelectorAll('.tab')) t.classList.toggle('on', t.id === 'tab-' + b.dataset.tab);
  notice('');
  if (b.dataset.tab === 'project') loadProject();
  if (b.dataset.tab === 'machines') startMachines();
});

// ---------------------------------------------------------------- memories
let offset = 0;
let memoryStream = null;
const bank = () => $('bank').value;
const card = (m, extra) => {
  const tags = (m.tags || []).map((t) => el('span', { class: 'chip', text: '#' + t }));
  const li = el('li', { 'data-id': m.id, class: (m.state === 'invalidated' ? 'invalidated' : '') },
    withHeadings(el('div', { class: 'text' }), m.shown || m.text),
    el('div', { class: 'meta' }, el('span', { class: 'chip type', text: m.fact_type || m.type || '' }), ...tags,
      el('span', { text: day(m.mentioned_at || m.date) }), m.document_id ? el('span', { class: 'mono', text: 'doc ' + short(m.document_id, 40) }) : null,
      m.state === 'invalidated' ? el('span', { class: 'chip miss', text: 'invalidated' }) : null),
    extra || null);
  li.addEventListener('click', () => showMemory(m.id));
  return li;
};
const loadBanks = async () => {
  const data = await api('/ui/api/banks');
  const sel = $('bank'); sel.textContent = '';
  for (const b of data.banks || []) sel.append(el('option', { value: b.bank_id, text: b.bank_id }));
  if (sel.options.length === 0) sel.append(el('option', { value: '', text: '(no banks)' }));
};
const listQuery = () => {
  const p = new URLSearchParams({ bank: bank(), q: $('q').value, type: $('type').value, state: $('state').value, offset: String(offset), limit: '50' });
  if ($('tag').value) p.append('tag', $('tag').value);
  return p;
};
let listGeneration = 0;
const loadMemories = async (more) => {
  if (!bank()) return;
  // Only the newest request fills the list: an older answer arriving late is dropped.
  const generation = ++listGeneration;
  if (!more) offset = 0;
  const data = await api('/ui/api/memories?' + listQuery());
  if (generation !== listGeneration) return;
  if (!more) $('memories').textContent = '';
  for (const m of data.items || []) $('memories').append(card(m));
  offset += (data.items || []).length;
  $('list-info').textContent = data.total + ' memor' + (data.total === 1 ? 'y' : 'ies') + ' in ' + bank() + (offset < data.total ? ' (showing ' + offset + ')' : '');
  $('more').hidden = offset >= data.total;
};
const watchMemories = () => {
  if (memoryStream) memoryStream.close();
  if (!bank()) return;
  memoryStream = stream('/ui/api/stream/memories?bank=' + encodeURIComponent(bank()));
  memoryStream.addEventListener('memory', (e) => {
    const m = JSON.parse(e.data);
    if ($('memories').querySelector('[data-id="' + CSS.escape(m.id) + '"]')) return;
    const li = card(m); li.classList.add('new');
    $('memories').prepend(li);
    $('list-info').textContent = 'new memory retained: ' + short(m.text, 60);
  });
};
$('filter').addEventListener('submit', (e) => { e.preventDefault(); loadMemories(false).catch((err) => notice(err.message)); });
$('more').addEventListener('click', () => loadMemories(true).catch((err) => notice(err.message)));
$('bank').addEventListener('change', () => { loadMemories(false).catch((err) => notice(err.message)); watchMemories(); $('detail').hidden = true; $('recall-results').textContent = ''; });

const why = (x) => {
  const box = el('div', { class: 'why' });
  if (!x) return box;
  box.append(el('div', { class: 'meta' }, el('b', { text: 'rank ' + x.rank }), el('span', { text: 'score ' + x.score.keyword.toFixed(3) + ' (final ' + x.score.final.toFixed(3) + ')' }), el('span', { text: 'stage ' + x.stage })));
  const terms = el('div', { class: 'meta' }, el('span', { text: 'matched:' }));
  for (const m of x.matched) terms.append(el('span', { class: 'chip term', text: m.word }));
  if (x.matched.length === 0) terms.append(el('span', { text: 'none of the query words' }));
  for (const t of x.expanded) terms.append(el('span', { class: 'chip exp', title: t.from + ' weight ' + t.weight.toFixed(2), text: '≈ ' + t.term }));
  for (const t of x.missing) terms.append(el('span', { class: 'chip miss', text: '− ' + t }));
  box.append(terms);
  for (const b of x.boosts) box.append(el('div', { class: 'meta', text: '↑ ' + b }));
  return box;
};
$('recall').addEventListener('submit', async (e) => {
  e.preventDefault();
  const query = $('recall-q').value.trim();
  if (!query || !bank()) return;
  try {
    const data = await api('/ui/api/recall', { bank: bank(), query });
    const list = $('recall-results'); list.textContent = '';
    const explained = new Map(((data.explain && data.explain.results) || []).map((x) => [x.id, x]));
    const traced = new Map((((data.trace && data.trace.final_results) || [])).map((r) => [r.node_id, r]));
    for (const r of data.results || []) {
      let extra;
      if (data.explain) extra = why(explained.get(r.id));
      else { const t = traced.get(r.id); extra = el('div', { class: 'why', text: t ? 'score ' + t.score + ' (the server gave no explanation; this is its trace)' : 'the server gave no explanation for this result' }); }
      list.append(card(r, extra));
    }
    const terms = data.explain ? data.explain.query_terms : null;
    $('recall-info').textContent = (data.results || []).length + ' result(s)' + (terms ? '; query terms: ' + terms.keyword.join(', ') + (terms.expansion.length ? '; expanded with ' + terms.expansion.slice(0, 12).map((t) => t.term).join(', ') : '') + '; confidence ' + Number(data.explain.confidence).toFixed(2) : '');
  } catch (err) { notice(err.message); }
});

const showMemory = async (id) => {
  try {
    const data = await api('/ui/api/memory?' + new URLSearchParams({ bank: bank(), id }));
    const m = data.memory;
    const d = $('detail'); d.textContent = ''; d.hidden = false;
    d.append(el('h3', { text: 'Memory ' + m.id }), withHeadings(el('pre', { id: 'detail-text' }), m.shown || m.text));
    d.append(el('div', { class: 'meta' }, el('span', { class: 'chip type', text: m.type || '' }), el('span', { text: 'state ' + (m.state || 'valid') }), el('span', { text: 'mentioned ' + day(m.mentioned_at) }),
      m.occurred_start ? el('span', { text: 'occurred ' + day(m.occurred_start) + (m.occurred_end ? ' – ' + day(m.occurred_end) : '') }) : null,
      ...(m.tags || []).map((t) => el('span', { class: 'chip', text: '#' + t }))));
    if (m.context) d.append(el('div', { class: 'meta', text: 'context: ' + m.context }));
    if (m.invalidation_reason) d.append(el('div', { class: 'meta', text: 'invalidated: ' + m.invalidation_reason }));
    const curatable = m.type !== 'observation';
    const actions = el('div', { class: 'bar' });
    if (curatable && m.state !== 'invalidated') actions.append(el('button', { id: 'edit', text: 'Edit', onclick: () => edit(m) }), el('button', { id: 'invalidate', text: 'Invalidate', onclick: () => invalidate(m) }));
    if (curatable && m.state === 'invalidated') actions.append(el('button', { id: 'restore', text: 'Restore', onclick: () => restore(m) }));
    if (curatable && m.document_id) actions.append(el('button', { id: 'delete', class: 'danger', text: 'Delete', onclick: () => remove(m, data.neighbours.length) }));
    d.append(actions);
    if (data.document) d.append(el('h3', { text: 'Source document ' + data.document.id }), el('pre', { class: 'mono', text: short(data.document.shown || data.document.original_text || '', 4000) }));
    if (data.neighbours.length) {
      d.append(el('h3', { text: 'Neighbours (same document)' }));
      const ol = el('ol', { class: 'cards' });
      for (const n of data.neighbours.slice(0, 20)) ol.append(card(n));
      d.append(ol);
    }
  } catch (err) { notice(err.message); }
};
const after = async (text, id) => { await loadMemories(false); if (id) await showMemory(id); notice(text, true); };
const edit = async (m) => {
  const text = await ask('Edit the text of this memory. The server re-indexes it; the next recall reads the new text.', true, m.text);
  if (text === null || !text.trim()) return;
  try { await api('/ui/api/memory/edit', { bank: bank(), id: m.id, text, confirm: m.id }); await after('Edited.', m.id); } catch (err) { notice(err.message); }
};
const invalidate = async (m) => {
  const reason = await ask('Invalidate this memory? Recall leaves it out; it is kept and can be restored. Reason (optional):', true, '');
  if (reason === null) return;
  try { await api('/ui/api/memory/invalidate', { bank: bank(), id: m.id, reason, confirm: m.id }); await after('Invalidated.', m.id); } catch (err) { notice(err.message); }
};
const restore = async (m) => {
  if (!(await ask('Restore this memory? Recall reads it again.'))) return;
  try { await api('/ui/api/memory/restore', { bank: bank(), id: m.id, confirm: m.id }); await after('Restored.', m.id); } catch (err) { notice(err.message); }
};
const remove = async (m, others) => {
  const text = 'Delete this memory for good? Hindsight deletes a memory with its source document ' + m.document_id + (others > 0 ? ', which holds ' + others + ' other memor' + (others === 1 ? 'y' : 'ies') + ' that go too.' : '.') + ' This cannot be undone.';
  if (!(await ask(text))) return;
  try { await api('/ui/api/memory/delete', { bank: bank(), id: m.id, confirm: m.id }); $('detail').hidden = true; await after('Deleted.'); } catch (err) { notice(err.message); }
};

// ---------------------------------------------------------------- project
const table = (head, rows) => el('table', {}, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h })))),
  el('tbody', {}, ...(rows.length > 0 ? rows : [el('tr', { class: 'none' }, el('td', { colspan: String(head.length), class: 'muted', text: 'none' }))])));
const loadProject = async () => {
  const box = $('project');
  try {
    const p = await api('/ui/api/project');
    box.textContent = '';
    box.append(el('div', { class: 'panel' }, el('h3', { text: 'Scope' }),
      el('div', { class: 'meta', text: 'project ' + p.cwd + ' · state dir ' + p.stateDir + ' · server ' + p.server + (p.enabled ? '' : ' · memory disabled') }),
      el('div', { class: 'meta', text: 'mode ' + p.scope.mode + ' · profile ' + p.scope.profile + ' · retain tags ' + p.scope.retainTags.join(', ') }),
      ...p.scope.problems.map((x) => el('div', { class: 'meta', text: '! ' + x })),
      table(['role', 'bank', 'active', 'scope tags'], p.banks.map((b) => el('tr', {}, el('td', { text: b.role }), el('td', { text: b.bankId }), el('td', { text: b.active ? 'yes' : 'no' }), el('td', { text: b.tags.join(', ') }))))));
    const q = p.queue;
    const queue = el('div', { class: 'panel', id: 'queue' }, el('h3', { text: 'Retain queue' }));
    if (q.problem) queue.append(el('div', { class: 'meta', text: q.problem }));
    else {
      const s = q.status;
      queue.append(el('div', { class: 'meta', id: 'queue-status', text: 'state ' + s.state + ' · pending ' + s.depth + ' · dead letters ' + s.deadLetters + (s.nextAttemptAt ? ' · backing off until ' + s.nextAttemptAt : '') + (s.lastError ? ' · last error: ' + s.lastError : '') + (s.lastDelivery ? ' · last delivery ' + s.lastDelivery.at : '') }));
      for (const x of q.setAside || []) queue.append(el('div', { class: 'meta set-aside', text: '! ' + x }));
      queue.append(el('h3', { text: 'Pending' }), table(['job', 'bank', 'document', 'queued'], q.pending.map((j) => el('tr', {}, el('td', { class: 'mono', text: j.jobId }), el('td', { text: j.bankId }), el('td', { class: 'mono', text: short(j.documentId, 40) }), el('td', { text: day(j.enqueuedAt) })))));
      queue.append(el('h3', { text: 'Dead letters' }), table(['job', 'bank', 'status', 'when', 'reason', ''], q.deadLetters.map((d) => el('tr', { 'data-job': d.jobId }, el('td', { class: 'mono', text: d.jobId }), el('td', { text: d.bankId }), el('td', { text: d.status === null ? '' : String(d.status) }), el('td', { text: day(d.at) }), el('td', { text: d.reason }),
        el('td', {}, el('button', { class: 'requeue', text: 'Requeue', onclick: () => deadLetter('requeue', d) }), ' ', el('button', { class: 'danger drop', text: 'Drop', onclick: () => deadLetter('drop', d) }))))));
    }
    box.append(queue);
    const kb = el('div', { class: 'panel' }, el('h3', { text: 'Mental models and knowledge pages' }));
    box.append(kb);
    for (const b of p.banks) {
      const models = await api('/ui/api/mental-models?bank=' + encodeURIComponent(b.bankId)).catch((err) => ({ error: err.message }));
      const tree = await api('/ui/api/knowledge?bank=' + encodeURIComponent(b.bankId)).catch((err) => ({ error: err.message }));
      kb.append(el('h3', { text: b.bankId }));
      if (models.error) kb.append(el('div', { class: 'meta', text: 'mental models: ' + models.error }));
      else {
        // One bank holds every project's models (each setup creates its starters): this project's
        // come first, and the tags say whose each is, so two "Architecture" rows are told apart.
        const ours = (m) => (m.tags || []).some((t) => b.tags.includes(t));
        const items = (models.items || []).slice().sort((x, y) => Number(ours(y)) - Number(ours(x)));
        kb.append(table(['mental model', 'tags', 'content'], items.map((m) => el('tr', { class: ours(m) ? 'ours' : 'other' }, el('td', { text: m.name || m.id }), el('td', { class: 'mono', text: (m.tags || []).join(', ') || '(none)' }), el('td', { text: short(m.content || m.source_query || '', 300) })))));
      }
      if (tree.error) kb.append(el('div', { class: 'meta', text: 'knowledge pages: ' + tree.error }));
      else {
        const pages = [];
        const walk = (nodes, prefix) => { for (const n of nodes || []) { if (n.type === 'page' || n.kind === 'page') pages.push([prefix + (n.name || n.title || n.id), n.id]); walk(n.children, prefix + (n.name || '') + '/'); } };
        walk(tree.roots || [], '');
        kb.append(table(['knowledge page', ''], pages.map(([name, id]) => el('tr', {}, el('td', { text: name }), el('td', {}, el('button', { text: 'Open', onclick: () => openPage(b.bankId, id) }))))));
      }
    }
  } catch (err) { notice(err.message); }
};
const openPage = async (bankId, id) => {
  try {
    const page = await api('/ui/api/knowledge/page?' + new URLSearchParams({ bank: bankId, id }));
    const box = $('kb-page') || el('div', { id: 'kb-page', class: 'panel' });
    box.textContent = '';
    box.append(el('h3', { text: page.name || id }), el('pre', { text: page.markdown || page.body || '' }));
    $('project').append(box);
  } catch (err) { notice(err.message); }
};
const deadLetter = async (verb, d) => {
  const text = verb === 'requeue' ? 'Requeue dead letter ' + d.jobId + ' and deliver it now? Fix the cause first (' + d.reason + ').' : 'Drop dead letter ' + d.jobId + ' for good? It will never be retained.';
  if (!(await ask(text))) return;
  try {
    const r = await api('/ui/api/dead-letters/' + verb, { id: d.jobId, confirm: d.jobId });
    notice(verb === 'requeue' ? 'Requeued ' + r.changed + '; delivered ' + r.delivered + ', ' + r.remaining + ' pending' + (r.stoppedBecause ? ' (' + r.stoppedBecause + ')' : '') : 'Dropped ' + r.changed + '.', true);
    await loadProject();
  } catch (err) { notice(err.message); }
};

// ---------------------------------------------------------------- machines
const gates = new Map();   // name -> { machineId, svg, box, now }
const runs = new Map();    // run -> { run, running, steps }
let machinesStarted = false;
let view = { run: '', steps: [], at: -1, replay: false };
// Every active state id, and the leaves among them (one per parallel region): the states it is in now.
const activeIds = (root, value, leaves) => {
  const out = [root];
  const walk = (prefix, v) => {
    if (typeof v === 'string') { out.push(prefix + '.' + v); if (leaves) leaves.push(prefix + '.' + v); return; }
    if (v && typeof v === 'object') for (const [k, child] of Object.entries(v)) { out.push(prefix + '.' + k); walk(prefix + '.' + k, child); }
  };
  walk(root, value);
  return out;
};
// {active: {recall: 'idle', retain: 'idle'}} reads as active.{recall.idle, retain.idle}.
const valueText = (v) => {
  if (typeof v === 'string') return v;
  if (!v || typeof v !== 'object') return String(v);
  const parts = Object.entries(v).map(([k, child]) => k + '.' + valueText(child));
  return parts.length === 1 ? parts[0] : '{' + parts.join(', ') + '}';
};
const fit = (g) => { g.vb = g.base.slice(); g.svg.setAttribute('viewBox', g.vb.join(' ')); };
const zoom = (g, factor, cx, cy) => {
  const [x, y, w, h] = g.vb;
  const nx = cx - (cx - x) * factor, ny = cy - (cy - y) * factor;
  g.vb = [nx, ny, w * factor, h * factor]; g.svg.setAttribute('viewBox', g.vb.join(' '));
};
const drawGate = (d) => {
  const box = el('div', { class: 'gate', 'data-gate': d.name });
  const now = el('span', { class: 'state-now', text: '' });
  const view = el('div', { class: 'view' });
  const g = { name: d.name, machineId: d.machineId, box, now };
  box.append(el('div', { class: 'head' }, el('b', { text: d.name }), now,
    el('button', { text: '−', title: 'zoom out', onclick: () => zoom(g, 1.25, g.vb[0] + g.vb[2] / 2, g.vb[1] + g.vb[3] / 2) }),
    el('button', { text: '+', title: 'zoom in', onclick: () => zoom(g, 0.8, g.vb[0] + g.vb[2] / 2, g.vb[1] + g.vb[3] / 2) }),
    el('button', { text: 'fit', title: 'show every state', onclick: () => fit(g) })), view);
  // The server's own SVG (drawn from the machine definitions, no user text) is parsed, not injected as HTML.
  const svg = new DOMParser().parseFromString(d.svg, 'image/svg+xml').documentElement;
  svg.removeAttribute('width'); svg.removeAttribute('height'); svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
  view.append(document.importNode(svg, true));
  g.svg = view.querySelector('svg');
  g.base = g.svg.getAttribute('viewBox').split(/\s+/).map(Number);
  g.vb = g.base.slice();
  gates.set(d.name, g);
  $('gates').append(box);
  // As tall as the drawing needs at the panel's width (within bounds), so every state shows at the largest scale.
  const h = Math.round(view.clientWidth * g.base[3] / g.base[2]);
  view.style.height = Math.max(200, Math.min(560, h)) + 'px';
  view.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = g.svg.getBoundingClientRect();
    const scale = Math.max(g.vb[2] / r.width, g.vb[3] / r.height);
    const cx = g.vb[0] + (e.clientX - r.left - (r.width - g.vb[2] / scale) / 2) * scale;
    const cy = g.vb[1] + (e.clientY - r.top - (r.height - g.vb[3] / scale) / 2) * scale;
    zoom(g, e.deltaY > 0 ? 1.15 : 1 / 1.15, cx, cy);
  }, { passive: false });
  let drag = null;
  view.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY, vb: g.vb.slice() }; view.setPointerCapture(e.pointerId); });
  view.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const r = g.svg.getBoundingClientRect();
    const scale = Math.max(g.vb[2] / r.width, g.vb[3] / r.height);
    g.vb = [drag.vb[0] - (e.clientX - drag.x) * scale, drag.vb[1] - (e.clientY - drag.y) * scale, g.vb[2], g.vb[3]];
    g.svg.setAttribute('viewBox', g.vb.join(' '));
  });
  view.addEventListener('pointerup', () => { drag = null; });
  view.addEventListener('dblclick', () => fit(g));
};
const paint = () => {
  const steps = view.steps;
  const at = view.at;
  for (const g of gates.values()) {
    for (const n of g.svg.querySelectorAll('.active, .taken, .current')) n.classList.remove('active', 'taken', 'current');
    let last = null;
    for (let i = 0; i <= at && i < steps.length; i += 1) if (steps[i].gate === g.name) last = steps[i];
    g.now.textContent = last ? valueText(last.to) : '';
    if (!last) continue;
    const leaves = [];
    const ids = activeIds(g.machineId, last.to, leaves);
    for (const id of ids) for (const n of g.svg.querySelectorAll('[data-state="' + CSS.escape(id) + '"]')) n.classList.add('active');
    for (const id of leaves) for (const n of g.svg.querySelectorAll('[data-state="' + CSS.escape(id) + '"]')) n.classList.add('current');
    const step = steps[at];
    if (step && step.gate === g.name && step.kind === 'transition' && step.event && step.event.type) {
      const before = activeIds(g.machineId, step.from);
      for (const t of g.svg.querySelectorAll('.transition')) if (t.dataset.event === step.event.type && before.includes(t.dataset.source)) t.classList.add('taken');
    }
  }
  const s = steps[at];
  $('slider').max = String(Math.max(0, steps.length - 1)); $('slider').value = String(Math.max(0, at));
  $('step-info').textContent = s ? 'step ' + (at + 1) + '/' + steps.length + '  ' + day(s.at) + '  ' + s.gate + '  ' + ((s.event && s.event.type) || '?') + '  ' + valueText(s.from) + ' → ' + valueText(s.to) + (s.problem ? '  (' + s.problem + ')' : '') : 'no steps yet: start a pi session in this project';
  $('payload').textContent = s ? JSON.stringify(s.event, null, 2) : '';
  for (const tr of document.querySelectorAll('#log tbody tr')) tr.classList.toggle('current', Number(tr.dataset.index) === at);
  const cur = document.querySelector('#log tr.current');
  if (cur) cur.scrollIntoView({ block: 'nearest' });
};
const logRow = (s, i) => el('tr', { class: 'click', 'data-index': String(i), onclick: () => { view.at = i; $('follow').checked = false; paint(); } },
  el('td', { text: String(i + 1) }), el('td', { text: day(s.at).slice(11) }), el('td', { text: s.gate }), el('td', { class: 'mono', text: (s.event && s.event.type) || '?' }),
  el('td', { class: 'mono', text: s.kind === 'rejected' ? 'not folded' : s.kind === 'local' ? 'this process only' : valueText(s.from) + ' → ' + valueText(s.to) }), el('td', { class: 'mono', text: s.effects.join(', ') }));
const showSteps = (steps, keepAt) => {
  view.steps = steps;
  const body = document.querySelector('#log tbody'); body.textContent = '';
  steps.forEach((s, i) => body.append(logRow(s, i)));
  view.at = keepAt && view.at >= 0 && view.at < steps.length ? view.at : steps.length - 1;
  paint();
};
// The server names each run ("pi session · pid 42", "agent-memory import · pid 42"; runName in hosts/ui/liveRuns.ts).
const runLabel = (r) => r.run + (r.run === 'project' ? ' (retain queue, import)' : r.running ? ' · running' : ' · ended') + ' · ' + r.steps.length + ' steps';
// A file a run's journals could not be read from is said whichever run is shown: the others are read on.
const showProblems = () => {
  const list = $('run-problems'); list.textContent = '';
  const all = [...runs.values()].flatMap((r) => (r.problems || []).map((p) => r.run + ': ' + p));
  for (const p of all) list.append(el('li', { text: p }));
  list.hidden = all.length === 0;
};
const fillRuns = () => {
  showProblems();
  const sel = $('run'); const keep = sel.value; sel.textContent = '';
  const list = [...runs.values()].sort((a, b) => (b.running - a.running) || String(b.startedAt).localeCompare(String(a.startedAt)));
  for (const r of list) sel.append(el('option', { value: r.run, text: runLabel(r) }));
  const first = list.find((r) => r.run !== 'project' && r.running) || list.find((r) => r.run !== 'project') || list[0];
  sel.value = keep && runs.has(keep) ? keep : (first ? first.run : '');
};
const selectRun = () => {
  view.replay = false; $('replay').value = '';
  view.run = $('run').value;
  const r = runs.get(view.run);
  // The project's shared gates (retain queue, import) are shown beside every session.
  const project = view.run !== 'project' ? (runs.get('project') || { steps: [] }).steps : [];
  const steps = [...(r ? r.steps : []), ...project].sort((a, b) => String(a.at).localeCompare(String(b.at)));
  // The project's journals are no process: neither running nor ended.
  $('run-info').textContent = r ? (r.run === 'project' ? 'the project\'s shared journals' : (r.pid ? 'pid ' + r.pid + ' ' : '') + (r.running ? 'running' : 'ended')) + ' · files ' + r.files.join(', ') : '';
  showSteps(steps, !$('follow').checked);
};
// The files to replay: listed again whenever a run appears, and when the list is opened.
const loadTraces = async () => {
  const traces = await api('/ui/api/traces');
  const sel = $('replay'); const keep = sel.value;
  const names = traces.files.concat(traces.launch && !traces.files.includes(traces.launch) ? [traces.launch] : []);
  sel.textContent = '';
  sel.append(el('option', { value: '', text: '(a trace or journal file)' }));
  for (const f of names) sel.append(el('option', { value: f, text: f }));
  sel.value = names.includes(keep) ? keep : '';
};
$('replay').addEventListener('focus', () => { loadTraces().catch((err) => notice(err.message)); });
const startMachines = async () => {
  if (machinesStarted) return;
  machinesStarted = true;
  try {
    const data = await api('/ui/api/machines');
    for (const d of data.gates) drawGate(d);
    await loadTraces();
  } catch (err) { notice(err.message); return; }
  const s = stream('/ui/api/stream/machines');
  s.addEventListener('runs', (e) => {
    runs.clear();
    for (const r of JSON.parse(e.data)) runs.set(r.run, { ...r, steps: r.steps.slice() });
    fillRuns(); if (!view.replay) selectRun();
    loadTraces().catch(() => undefined);
  });
  s.addEventListener('alive', (e) => {
    for (const a of JSON.parse(e.data)) { const r = runs.get(a.run); if (r) { r.running = a.running; r.problems = a.problems; } }
    const keep = $('run').value; fillRuns(); $('run').value = keep;
  });
  s.addEventListener('step', (e) => {
    const step = JSON.parse(e.data);
    let r = runs.get(step.run);
    if (!r) { r = { run: step.run, pid: null, running: true, startedAt: step.at, files: [], steps: [], problems: [] }; runs.set(step.run, r); fillRuns(); loadTraces().catch(() => undefined); }
    r.steps.push(step);
    const opt = [...$('run').options].find((o) => o.value === step.run);
    if (opt) opt.textContent = runLabel(r);
    if (view.replay) return;
    if (!view.run || !runs.has(view.run) || (view.run === 'project' && step.run !== 'project')) { $('run').value = step.run; }
    if (step.run !== $('run').value && step.run !== 'project') return;
    view.run = $('run').value;
    view.steps.push(step);
    const i = view.steps.length - 1;
    document.querySelector('#log tbody').append(logRow(step, i));
    if ($('follow').checked) view.at = i;
    paint();
  });
};
$('run').addEventListener('change', selectRun);
$('replay').addEventListener('change', async () => {
  const file = $('replay').value;
  if (!file) { selectRun(); return; }
  try {
    const r = await api('/ui/api/replay?file=' + encodeURIComponent(file));
    view.replay = true; $('follow').checked = false;
    $('run-info').textContent = 'replay of ' + file + (r.problems.length ? ' (' + r.problems.length + ' record(s) skipped)' : '');
    showSteps(r.steps, false); view.at = 0; paint();
  } catch (err) { notice(err.message); }
});
$('slider').addEventListener('input', (e) => { view.at = Number(e.target.value); $('follow').checked = view.at === view.steps.length - 1; paint(); });
$('prev').addEventListener('click', () => { if (view.at > 0) { view.at -= 1; $('follow').checked = false; paint(); } });
$('next').addEventListener('click', () => { if (view.at < view.steps.length - 1) { view.at += 1; paint(); } });
$('follow').addEventListener('change', () => { if ($('follow').checked) { view.at = view.steps.length - 1; paint(); } });

// ---------------------------------------------------------------- start
tokenReady.then(() => {
  if (location.hash === '#machines') document.querySelector('#tabs [data-tab="machines"]').click();
  else if (location.hash === '#project') document.querySelector('#tabs [data-tab="project"]').click();
  api('/ui/api/where').then((w) => { $('where').textContent = w.server + ' · ' + w.cwd; }).catch(() => undefined);
  loadBanks().then(() => { loadMemories(false); watchMemories(); }).catch((err) => notice(err.message));
});
`;
