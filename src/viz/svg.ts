/**
 * A laid-out machine as SVG. Every state and transition carries `data-*` attributes so the
 * visualiser page can highlight the active states and the transition just taken.
 */
import { edgeText, type Layout } from './layout.js';

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n = (v: number): string => (Math.round(v * 10) / 10).toString();

export const renderSvg = (layout: Layout, options: { readonly id: string; readonly margin?: number }): string => {
  const m = options.margin ?? 16;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="machine" id="${esc(options.id)}" width="${n(layout.width + 2 * m)}" height="${n(layout.height + 2 * m)}" viewBox="${n(-m)} ${n(-m)} ${n(layout.width + 2 * m)} ${n(layout.height + 2 * m)}">`,
    `<defs><marker id="${esc(options.id)}-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="arrowhead"/></marker></defs>`,
  ];
  // Compound states first, so their children and the edges are drawn on top of them.
  const ordered = [...layout.nodes].sort((a, b) => Number(b.compound) - Number(a.compound));
  for (const p of ordered) {
    const any = p.node.id.endsWith('.*');
    const cls = `${any ? 'any-state' : 'state'}${p.compound ? ' compound' : ''}${p.node.type === 'final' ? ' final' : ''}`;
    const title = [p.node.id, ...(p.node.entry.length > 0 ? [`entry: ${p.node.entry.join(', ')}`] : []), ...(p.node.invokes.length > 0 ? [`invokes: ${p.node.invokes.join(', ')}`] : [])].join('\n');
    parts.push(
      `<g class="${cls}"${any ? '' : ` data-state="${esc(p.node.id)}"`}><title>${esc(title)}</title>`,
      `<rect x="${n(p.x)}" y="${n(p.y)}" width="${n(p.width)}" height="${n(p.height)}" rx="8"/>`,
      p.compound
        ? `<text x="${n(p.x + 10)}" y="${n(p.y + 18)}" class="compound-label">${esc(p.node.key)}</text>`
        : `<text x="${n(p.x + p.width / 2)}" y="${n(p.y + p.height / 2 + 4)}" text-anchor="middle">${esc(p.node.key)}</text>`,
      '</g>',
    );
  }
  for (const e of layout.edges) {
    if (e.points.length < 2) continue;
    const d = e.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${n(p.x)},${n(p.y)}`).join(' ');
    const actions = e.edge.actions.filter((a) => !a.startsWith('xstate.'));
    parts.push(
      `<g class="transition" data-source="${esc(e.edge.source)}" data-target="${esc(e.target)}" data-event="${esc(e.edge.event)}">`,
      `<title>${esc(`${edgeText(e.edge)}${actions.length > 0 ? ` / ${actions.join(', ')}` : ''}`)}</title>`,
      `<path d="${d}" marker-end="url(#${esc(options.id)}-arrow)"/>`,
      `<text x="${n(e.label.x)}" y="${n(e.label.y + 12)}">${esc(e.label.text)}</text>`,
      '</g>',
    );
  }
  parts.push('</svg>');
  return parts.join('\n');
};
