/**
 * The visualiser: one self-contained HTML page (no network, no build step) with a diagram per
 * gate and, when a trace is given, a step-by-step replay that highlights the active states and
 * the transition each recorded event took.
 */
import { DIAGRAM_STYLE } from './diagramStyle.js';
import type { TraceRecord } from '../effects/ports/trace.js';

export interface PageGate {
  readonly name: string;
  readonly machineId: string;
  readonly svg: string;
}

export interface PageInput {
  readonly title: string;
  readonly gates: readonly PageGate[];
  readonly trace?: readonly TraceRecord[];
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** JSON inside a <script> must not be able to close the tag. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

const STYLE = `
body { font: 14px system-ui, sans-serif; margin: 0; color: #1d2433; background: #f7f8fa; }
header { padding: 12px 20px; background: #1d2433; color: #fff; display: flex; gap: 16px; align-items: center; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
main { padding: 16px 20px; }
section { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; margin-bottom: 16px; padding: 12px; overflow: auto; }
section h2 { font-size: 14px; margin: 0 0 8px; }
section h2 .hint { font-weight: normal; color: #4b5568; font-size: 12px; margin-left: 8px; }
/* Every diagram fits the page's width (the setup gate alone is about 2,000 px wide); a click shows it at full size, scrolled in its box. */
section svg.machine { max-width: 100%; height: auto; cursor: zoom-in; }
section svg.machine.full { max-width: none; cursor: zoom-out; }
.controls { display: flex; gap: 8px; align-items: center; }
.controls button { font: inherit; padding: 4px 10px; border-radius: 6px; border: 1px solid #8a93a6; background: #fff; cursor: pointer; }
#step-info { font-family: ui-monospace, monospace; font-size: 12px; }
#step-info.rejected { color: #b42318; }
${DIAGRAM_STYLE}
`;

const SCRIPT = `
const steps = JSON.parse(document.getElementById('trace').textContent);
const machines = JSON.parse(document.getElementById('machines').textContent);
let at = steps.length === 0 ? -1 : 0;
const activeIds = (root, value) => {
  const out = [root];
  const walk = (prefix, v) => {
    if (typeof v === 'string') { out.push(prefix + '.' + v); return; }
    if (v && typeof v === 'object') for (const [k, child] of Object.entries(v)) { out.push(prefix + '.' + k); walk(prefix + '.' + k, child); }
  };
  walk(root, value);
  return out;
};
const lastState = new Map();
const show = () => {
  document.querySelectorAll('.active, .taken').forEach((el) => el.classList.remove('active', 'taken'));
  const info = document.getElementById('step-info');
  if (at < 0) { info.textContent = 'no trace loaded: the diagrams show structure only'; return; }
  const before = new Map();
  for (let i = 0; i < at; i += 1) { const s = steps[i]; if (s.kind === 'transition') before.set(s.gate, s.data.value); }
  const step = steps[at];
  const now = new Map(before);
  if (step.kind === 'transition') now.set(step.gate, step.data.value);
  for (const [gate, value] of now) {
    const id = machines[gate];
    if (!id) continue;
    const svg = document.querySelector('svg[data-gate="' + gate + '"]');
    if (!svg) continue;
    const active = activeIds(id, value);
    for (const sid of active) svg.querySelectorAll('[data-state="' + sid + '"]').forEach((el) => el.classList.add('active'));
    if (step.kind === 'transition' && step.gate === gate && step.data.event) {
      const prev = before.has(gate) ? activeIds(id, before.get(gate)) : [id];
      svg.querySelectorAll('.transition').forEach((el) => {
        if (el.dataset.event === step.data.event.type && prev.includes(el.dataset.source)) el.classList.add('taken');
      });
    }
  }
  info.className = step.kind === 'rejected' ? 'rejected' : '';
  const what = step.kind === 'transition' ? (step.data.event && step.data.event.type) : JSON.stringify(step.data).slice(0, 160);
  info.textContent = 'step ' + (at + 1) + '/' + steps.length + '  ' + step.at + '  ' + step.gate + '  ' + step.kind + '  ' + what;
  document.getElementById('slider').value = String(at);
};
document.querySelectorAll('svg.machine').forEach((svg) => svg.addEventListener('click', () => svg.classList.toggle('full')));
document.getElementById('slider').max = String(Math.max(0, steps.length - 1));
document.getElementById('slider').addEventListener('input', (e) => { at = Number(e.target.value); show(); });
document.getElementById('prev').addEventListener('click', () => { if (at > 0) { at -= 1; show(); } });
document.getElementById('next').addEventListener('click', () => { if (at < steps.length - 1) { at += 1; show(); } });
document.addEventListener('keydown', (e) => { if (e.key === 'ArrowLeft') document.getElementById('prev').click(); if (e.key === 'ArrowRight') document.getElementById('next').click(); });
show();
`;

export const visualiserPage = (input: PageInput): string => {
  const machines = Object.fromEntries(input.gates.map((g) => [g.name, g.machineId]));
  const sections = input.gates
    .map((g) => `<section><h2>${esc(g.name)}<span class="hint">click the diagram for its full size</span></h2>${g.svg.replace('<svg ', `<svg data-gate="${esc(g.name)}" `)}</section>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(input.title)}</title><style>${STYLE}</style></head>
<body>
<header><h1>${esc(input.title)}</h1>
<div class="controls"><button id="prev" title="previous step (←)">◀</button><input id="slider" type="range" min="0" value="0"><button id="next" title="next step (→)">▶</button></div>
<span id="step-info"></span></header>
<main>${sections}</main>
<script type="application/json" id="trace">${scriptJson(input.trace ?? [])}</script>
<script type="application/json" id="machines">${scriptJson(machines)}</script>
<script>${SCRIPT}</script>
</body></html>
`;
};
