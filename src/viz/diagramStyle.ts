/**
 * How a machine diagram looks, wherever it is shown (the visualiser's page and the memory
 * browser's machines tab): one sheet, so both draw a state, a transition and a replay step alike.
 */
export const DIAGRAM_STYLE = `
svg.machine text { font: 12px system-ui, sans-serif; fill: #1d2433; }
svg.machine .state rect { fill: #fff; stroke: #8a93a6; stroke-width: 1.2; }
svg.machine .state.compound > rect { fill: #f2f4f8; }
svg.machine .state.final rect { stroke-width: 3; }
svg.machine .any-state rect { fill: #fff; stroke: #8a93a6; stroke-dasharray: 4 3; }
svg.machine .any-state text { font-style: italic; }
svg.machine .compound-label { font-weight: 600; }
svg.machine .transition path { fill: none; stroke: #8a93a6; stroke-width: 1.2; }
svg.machine .transition text { fill: #4b5568; font-size: 11px; }
svg.machine .arrowhead { fill: #8a93a6; }
svg.machine .state.active > rect { fill: #dcebff; stroke: #1f6feb; stroke-width: 2.5; }
svg.machine .state.compound.active > rect { fill: #eef5ff; }
svg.machine .state.current > rect { fill: #ffe3b3; stroke: #d4731a; stroke-width: 3; }
svg.machine .transition.taken path { stroke: #d4731a; stroke-width: 2.5; }
svg.machine .transition.taken text { fill: #d4731a; font-weight: 600; }
`;
