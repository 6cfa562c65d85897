import { DIAGRAM_STYLE } from '../viz/diagramStyle.js';

/** The memory browser's style sheet: system fonts only, nothing loaded from anywhere. */
export const UI_STYLE = `
* { box-sizing: border-box; }
body { font: 14px system-ui, sans-serif; margin: 0; color: #1d2433; background: #f5f6f8; }
header { padding: 10px 18px; background: #1d2433; color: #fff; display: flex; gap: 18px; align-items: center; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
header .where { margin-left: auto; font-size: 12px; color: #b8c0d0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 45vw; }
nav button { font: inherit; color: #cfd6e4; background: none; border: 0; padding: 6px 10px; border-radius: 6px; cursor: pointer; }
nav button.on { background: #3a4560; color: #fff; }
main { padding: 12px 18px; }
.tab { display: none; } .tab.on { display: block; }
.cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.cols.wide-left { grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); }
.bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 8px; }
/* The recall box takes the bar's width, so its placeholder (a whole instruction) is read whole. */
#recall-q { flex: 1; min-width: 12em; }
input, select, textarea, button { font: inherit; }
input, select, textarea { padding: 4px 6px; border: 1px solid #b9c0cd; border-radius: 5px; background: #fff; }
button { padding: 4px 10px; border-radius: 6px; border: 1px solid #8a93a6; background: #fff; cursor: pointer; }
button.danger { border-color: #b42318; color: #b42318; }
.muted { color: #5b6477; font-size: 12px; margin: 4px 0; }
.mono { font-family: ui-monospace, monospace; font-size: 12px; }
.cards { list-style: none; padding: 0; margin: 0; }
.cards li { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 8px 10px; margin-bottom: 6px; cursor: pointer; }
.cards li:hover { border-color: #1f6feb; }
.cards li.new { border-color: #2da44e; box-shadow: 0 0 0 2px #d2f4dc; }
.cards li .text { white-space: pre-line; }
.cards li.invalidated .text { text-decoration: line-through; color: #8a93a6; }
.meta { font-size: 12px; color: #5b6477; margin-top: 4px; display: flex; flex-wrap: wrap; gap: 6px; }
.chip { background: #eef1f6; border-radius: 10px; padding: 0 7px; font-size: 11px; }
.chip.type { background: #e4ecff; } .chip.term { background: #dcf5e4; } .chip.exp { background: #fff1d6; } .chip.miss { background: #f4e1e1; }
.why { font-size: 12px; margin-top: 6px; border-top: 1px dashed #dde1e8; padding-top: 4px; }
.panel { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 10px 12px; margin-top: 10px; }
.panel h3, h3 { font-size: 13px; margin: 8px 0 6px; }
.panel pre, #payload { white-space: pre-wrap; word-break: break-word; background: #f7f8fa; padding: 8px; border-radius: 6px; max-height: 260px; overflow: auto; margin: 0; }
table { border-collapse: collapse; width: 100%; background: #fff; font-size: 12px; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #eceff4; vertical-align: top; }
tr.current td { background: #fff4e0; }
tr.click { cursor: pointer; }
#notice { margin: 8px 18px 0; padding: 8px 10px; border-radius: 6px; background: #fdecea; color: #8a1c12; }
#notice.ok { background: #e6f4ea; color: #185c2c; }
.problems { margin: 6px 0; padding: 6px 10px 6px 28px; border-radius: 6px; background: #fff4e5; color: #6b3d00; }
.gates { display: grid; grid-template-columns: minmax(0, 1fr); gap: 10px; margin-bottom: 10px; }
.gate { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 6px 8px; min-width: 0; }
.gate .head { display: flex; gap: 6px; align-items: center; font-size: 13px; }
.gate .head b { margin-right: auto; }
.gate .state-now { font-family: ui-monospace, monospace; font-size: 12px; color: #1f6feb; }
.gate .view { width: 100%; height: 300px; overflow: hidden; cursor: grab; border-top: 1px solid #eceff4; margin-top: 4px; touch-action: none; }
.gate .view svg { width: 100%; height: 100%; display: block; }
.slider input[type=range] { flex: 1; min-width: 200px; }
.log-wrap { max-height: 320px; overflow: auto; border: 1px solid #dde1e8; border-radius: 8px; }
${DIAGRAM_STYLE}
dialog { border: 1px solid #8a93a6; border-radius: 10px; max-width: 520px; }
dialog textarea { width: 100%; }
`;
