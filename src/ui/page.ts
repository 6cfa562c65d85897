/**
 * The memory browser's one page: markup, style and script inline under the launch's nonce (the
 * content security policy allows nothing else), nothing fetched from outside. It holds no data
 * (it is served without the launch token): the script asks this page's own `/ui/api/*` routes
 * for everything, the server and project it shows included, with the token its launch address
 * gave after `#` (script.ts).
 */
import { UI_SCRIPT } from './script.js';
import { UI_STYLE } from './style.js';

export interface UiPageInput {
  readonly nonce: string;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const uiPage = (input: UiPageInput): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-memory</title><style nonce="${esc(input.nonce)}">${UI_STYLE}</style></head>
<body>
<header>
  <h1>agent-memory</h1>
  <nav id="tabs"><button data-tab="memories" class="on">Memories</button><button data-tab="project">Project</button><button data-tab="machines">Machines</button></nav>
  <span id="where" class="where" title="memory server and project directory"></span>
</header>
<div id="notice" hidden></div>
<main>
<section id="tab-memories" class="tab on">
  <div class="cols">
    <div class="col">
      <form id="filter" class="bar">
        <select id="bank" title="bank"></select>
        <input id="q" placeholder="search text" size="14">
        <select id="type" title="type"><option value="">any type</option><option>world</option><option>experience</option><option>observation</option></select>
        <input id="tag" placeholder="tag" size="8">
        <select id="state" title="state"><option value="">any state</option><option value="valid">valid</option><option value="invalidated">invalidated</option></select>
        <button type="submit">Search</button>
      </form>
      <div id="list-info" class="muted"></div>
      <ol id="memories" class="cards"></ol>
      <button id="more" hidden>More</button>
    </div>
    <div class="col">
      <form id="recall" class="bar"><input id="recall-q" placeholder="recall: ask what the agent would be reminded of" size="34"><button type="submit">Recall</button></form>
      <div id="recall-info" class="muted"></div>
      <ol id="recall-results" class="cards"></ol>
      <div id="detail" class="panel" hidden></div>
    </div>
  </div>
</section>
<section id="tab-project" class="tab">
  <div id="project"></div>
</section>
<section id="tab-machines" class="tab">
  <div class="bar">
    <label>Run <select id="run"></select></label>
    <label>Replay <select id="replay"><option value="">(a trace or journal file)</option></select></label>
    <span id="run-info" class="muted"></span>
  </div>
  <ul id="run-problems" class="problems" hidden></ul>
  <div class="bar slider"><button id="prev" title="previous step">◀</button><input id="slider" type="range" min="0" max="0" value="0"><button id="next" title="next step">▶</button>
  <label><input id="follow" type="checkbox" checked> follow live</label><span id="step-info" class="mono"></span></div>
  <div id="gates" class="gates"></div>
  <div class="cols wide-left">
    <div class="col"><h3>Event log</h3><div class="log-wrap"><table id="log"><thead><tr><th>#</th><th>time</th><th>gate</th><th>event</th><th>transition</th><th>effects</th></tr></thead><tbody></tbody></table></div></div>
    <div class="col"><h3>Payload (redacted)</h3><pre id="payload" class="mono"></pre></div>
  </div>
</section>
</main>
<dialog id="confirm"><form method="dialog"><p id="confirm-text"></p><textarea id="confirm-input" rows="4" hidden></textarea>
<div class="bar"><button id="confirm-ok" value="ok">Confirm</button><button id="confirm-cancel" value="cancel">Cancel</button></div></form></dialog>
<script nonce="${esc(input.nonce)}">${UI_SCRIPT}</script>
</body></html>
`;
