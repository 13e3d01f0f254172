/* referee replay: the common viewer.
 *
 * The page carries its games as gzip-compressed JSON, base64 in <script id="replay-data">
 * (no network, works from file://).  This file decodes them, builds the controls and the
 * timeline, and asks the game's renderer to draw each step.  A renderer registers itself:
 *
 *   RefereeReplay.register("yahtzee", {
 *     steps(game)            -> how many steps the game has (default: its transcript's length)
 *     render(el, game, step, ctx)  draw the game after `step` steps (0: the start; steps(game): the end)
 *     describe(game, step)   -> optional one-line text for the step panel
 *     entry(game, step)      -> optional: the transcript index step `step` shows (-1: none),
 *                               when steps are not one per transcript entry (default step - 1)
 *   });
 *
 * `game` is one GameRecord as --log writes it (docs/records.md): seats, scores, ranks,
 * forfeits, summary, transcript [{seat, kind, line, reply, verdict, detail}].
 * `ctx` has {meta, h(tag, attrs, ...children)} — h builds DOM nodes, text always escaped.
 */
(function () {
  "use strict";
  const renderers = {};
  const state = { meta: null, games: [], game: 0, step: 0, playing: false, speed: 4, timer: null };

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") el.className = v;
        else if (k === "style") el.setAttribute("style", v);
        else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
        else el.setAttribute(k, v);
      }
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  const generic = {
    render(el, game, step) {
      const rows = (game.transcript || []).slice(0, step).map((t, i) =>
        h("tr", null, h("td", { class: "n" }, i + 1), h("td", null, game.seats[t.seat] || t.seat),
          h("td", null, t.kind), h("td", { style: "font-family:monospace" }, t.line || ""),
          h("td", { class: "n" }, t.reply === undefined ? "" : t.reply)));
      el.append(h("table", { class: "result" }, h("tr", null, h("th", null, "#"), h("th", null, "seat"),
        h("th", null, "kind"), h("th", null, "line"), h("th", null, "reply")), rows.slice(-30)));
    },
  };

  function renderer() { return renderers[state.meta.game] || generic; }
  function current() { return state.games[state.game]; }
  function stepsOf(game) {
    const r = renderer();
    return r.steps ? r.steps(game) : (game.transcript || []).length;
  }

  async function decode() {
    const b64 = document.getElementById("replay-data").textContent.trim();
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function verdictsOf(game) {
    return (game.forfeits || []).map((f) => {
      const detail = f.detail || "";
      const cut = detail.indexOf("; stderr: ");
      return { who: f.player, verdict: f.verdict, decision: f.decision, why: cut < 0 ? detail : detail.slice(0, cut),
        stderr: cut < 0 ? "" : detail.slice(cut + 10), position: f.position, reply: f.reply };
    });
  }

  // The transcript entry a step shows: the renderer says when its steps are not the
  // transcript's (a Hold'em step is an action of summary.hands); -1 for none.
  function entryOf(game, step) {
    const r = renderer();
    return r.entry ? r.entry(game, step) : step - 1;
  }

  // The step at which each forfeit happened: the first showing an entry with a verdict.
  const verdictCache = new WeakMap();
  function verdictSteps(game) {
    if (verdictCache.has(game)) return verdictCache.get(game);
    const transcript = game.transcript || [];
    const out = [];
    const seen = new Set();
    const total = stepsOf(game);
    for (let step = 1; step <= total; step++) {
      const i = entryOf(game, step);
      if (i >= 0 && i < transcript.length && transcript[i].verdict && !seen.has(i)) {
        seen.add(i);
        out.push({ step, t: transcript[i] });
      }
    }
    verdictCache.set(game, out);
    return out;
  }

  function draw() {
    const game = current();
    const total = stepsOf(game);
    state.step = Math.max(0, Math.min(state.step, total));
    const board = document.getElementById("board");
    board.replaceChildren();
    try {
      renderer().render(board, game, state.step, { meta: state.meta, h });
    } catch (err) {
      board.append(h("div", { class: "verdict" }, h("b", null, "cannot draw this step: "), String(err)));
      console.error(err);
    }
    document.getElementById("pos").textContent =
      `game ${state.game + 1} of ${state.games.length} · step ${state.step} of ${total}`;
    document.getElementById("game-select").value = String(state.game);
    const fill = document.querySelector("#timeline .fill");
    fill.style.width = total ? `${(100 * state.step) / total}%` : "0";
    const marks = document.getElementById("marks");
    marks.replaceChildren(...verdictSteps(game).map(({ step, t }) =>
      h("div", { class: "mark", style: `left:calc(${total ? (100 * step) / total : 0}% - 2px)`,
        title: `${game.seats[t.seat]}: ${t.verdict}: ${t.detail || ""}` })));
    const panel = document.getElementById("step");
    panel.replaceChildren();
    const at = state.step > 0 ? entryOf(game, state.step) : -1;
    const t = at >= 0 ? (game.transcript || [])[at] || null : null;
    const described = renderer().describe ? renderer().describe(game, state.step) : null;
    if (described) panel.append(h("div", null, described));
    if (t) {
      panel.append(h("div", null, h("span", { class: "seat-name" }, game.seats[t.seat] ?? `seat ${t.seat}`),
        ` (${t.kind}) was sent `, h("code", null, t.line || "")),
        t.reply != null ? h("div", null, "and replied ", h("span", { class: "reply" }, t.reply)) : null);
      if (t.verdict) panel.append(h("div", { class: "verdict" }, h("b", null, t.verdict), " ", t.detail || ""));
    } else if (!described) {
      panel.append(h("span", { class: "muted" }, "the start of the game"));
    }
    const verdicts = document.getElementById("verdicts");
    verdicts.replaceChildren(...verdictsOf(game).map((v) => h("div", { class: "verdict" },
      h("b", null, v.verdict), ` ${v.who}`, v.decision !== undefined ? ` at decision ${v.decision}` : "", ": ", v.why,
      v.reply != null ? h("div", null, "reply: ", h("code", null, v.reply)) : null,
      v.stderr ? h("pre", null, "stderr: " + v.stderr) : null)));
    if (!verdicts.children.length) verdicts.append(h("span", { class: "muted" }, "no forfeits in this game"));
    const result = document.getElementById("result");
    result.replaceChildren(h("table", { class: "result" },
      h("tr", null, h("th", null, "seat"), h("th", null, "bot"), h("th", null, "score"), h("th", null, "place")),
      game.seats.map((name, s) => h("tr", null, h("td", { class: "n" }, s), h("td", { class: game.ranks[s] === 1 ? "winner" : "" }, name),
        h("td", { class: "n" }, game.scores[s]), h("td", { class: "n" }, game.ranks[s])))));
  }

  function go(step) { state.step = step; draw(); }
  function goGame(index) {
    state.game = Math.max(0, Math.min(index, state.games.length - 1));
    state.step = 0;
    draw();
  }
  function tick() {
    const total = stepsOf(current());
    if (state.step < total) go(state.step + 1);
    else if (state.game < state.games.length - 1) goGame(state.game + 1);
    else toggle(false);
  }
  function toggle(on) {
    state.playing = on === undefined ? !state.playing : on;
    clearInterval(state.timer);
    if (state.playing) state.timer = setInterval(tick, 1000 / state.speed);
    document.getElementById("play").textContent = state.playing ? "❚❚ pause" : "▶ play";
  }
  function setSpeed(s) {
    state.speed = Math.max(0.5, Math.min(64, s));
    document.getElementById("speed").textContent = `${state.speed}×/s`;
    if (state.playing) toggle(true);
  }

  function build() {
    const meta = state.meta;
    document.title = meta.title;
    const select = h("select", { id: "game-select", onchange: (e) => goGame(Number(e.target.value)) },
      state.games.map((g, i) => h("option", { value: String(i) },
        `game ${g.game ?? i}${(g.forfeits || []).length ? " ⚠" : ""}: ${g.seats.map((n, s) => `${n} ${g.scores[s]}`).join(", ")}`)));
    document.body.replaceChildren(
      h("header", null, h("h1", null, meta.title),
        h("div", { class: "meta" }, meta.subtitle || "", " · ",
          "keys: ", h("kbd", null, "space"), " play/pause, ", h("kbd", null, "←"), h("kbd", null, "→"), " step, ",
          h("kbd", null, "Home"), h("kbd", null, "End"), " start/end, ", h("kbd", null, "PgUp"), h("kbd", null, "PgDn"),
          " game, ", h("kbd", null, "+"), h("kbd", null, "−"), " speed")),
      h("div", { id: "controls" },
        h("button", { onclick: () => go(0), title: "start (Home)" }, "|◀"),
        h("button", { onclick: () => go(state.step - 1), title: "back (←)" }, "◀"),
        h("button", { id: "play", onclick: () => toggle() }, "▶ play"),
        h("button", { onclick: () => go(state.step + 1), title: "forward (→)" }, "▶"),
        h("button", { onclick: () => go(stepsOf(current())), title: "end (End)" }, "▶|"),
        h("button", { onclick: () => setSpeed(state.speed / 2) }, "−"), h("span", { id: "speed" }, ""),
        h("button", { onclick: () => setSpeed(state.speed * 2) }, "+"),
        select, h("span", { id: "pos", class: "pos" }, "")),
      h("div", { id: "timeline", onclick: (e) => {
        const r = e.currentTarget.getBoundingClientRect();
        go(Math.round(((e.clientX - r.left) / r.width) * stepsOf(current())));
      } }, h("div", { class: "fill" }), h("div", { id: "marks" })),
      h("main", null,
        h("div", { class: "card" }, h("div", { id: "board" })),
        h("div", null,
          h("div", { class: "card" }, h("h2", null, "This step"), h("div", { id: "step" })),
          h("div", { class: "card" }, h("h2", null, "Forfeits and verdicts"), h("div", { id: "verdicts" })),
          h("div", { class: "card" }, h("h2", null, "Result"), h("div", { id: "result" })))));
    document.addEventListener("keydown", (e) => {
      if (e.target.tagName === "SELECT") return;
      const keys = { " ": () => toggle(), ArrowRight: () => go(state.step + 1), ArrowLeft: () => go(state.step - 1),
        Home: () => go(0), End: () => go(stepsOf(current())), PageDown: () => goGame(state.game + 1),
        PageUp: () => goGame(state.game - 1), "+": () => setSpeed(state.speed * 2), "=": () => setSpeed(state.speed * 2),
        "-": () => setSpeed(state.speed / 2) };
      if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    });
    setSpeed(state.speed);
  }

  window.RefereeReplay = {
    register(name, r) { renderers[name] = r; },
    h,
    state,
    go,
    goGame,
    async start() {
      const data = await decode();
      state.meta = data.meta;
      state.games = data.games;
      build();
      goGame(Math.max(0, Math.min(data.meta.first || 0, state.games.length - 1)));
      state.step = stepsOf(current());
      draw();
      document.body.dataset.ready = "1";
      document.body.dataset.readyMs = String(Math.round(performance.now()));
    },
  };
})();
