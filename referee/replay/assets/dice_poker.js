/* referee replay: dice poker.  One step per transcript line of the deal: the first
 * player's decision, the second's (or "opponent folded"), the showdown lines.  A line is
 * "op B state d" (docs/protocols/dice-poker.md): state 0/1 a decision with the asked
 * player's own die, 2/3 "your opponent has folded", 4/5 the showdown with the opponent's
 * die.  A reply of 0 folds, any other integer raises to B (first) or calls (second). */
(function () {
  "use strict";
  const PIPS = [[], [4], [0, 8], [0, 4, 8], [0, 2, 6, 8], [0, 2, 4, 6, 8], [0, 2, 3, 5, 6, 8]];
  const ROLE = ["first player · small blind", "second player · big blind"];
  const style = document.createElement("style");
  style.textContent = `
.dp { display:flex; flex-direction:column; gap:12px; max-width:760px; }
.dp-top { display:flex; gap:14px; align-items:center; flex-wrap:wrap; }
.dp-b { background:#1d2330; color:#fff; border-radius:10px; padding:6px 14px; font-size:15px; }
.dp-b b { font-size:26px; margin-left:6px; color:#ffd34d; }
.dp-pot { display:flex; align-items:center; gap:8px; font-size:15px; }
.dp-chip { width:34px; height:34px; border-radius:50%; background:#c0362c; border:4px dashed #fff; box-shadow:0 0 0 2px #c0362c;
  color:#fff; font-weight:800; display:inline-flex; align-items:center; justify-content:center; font-size:12px; }
.dp-table { display:grid; grid-template-columns:1fr 1fr; gap:14px; background:radial-gradient(ellipse at center,#2f8a58,#1b5e3b);
  border-radius:60px; padding:22px 28px; border:8px solid #6b4226; }
.dp-seat { background:rgba(255,255,255,.93); border-radius:12px; padding:10px 12px; display:flex; gap:12px; align-items:center; }
.dp-seat.act { box-shadow:0 0 0 4px #ffd34d; }
.dp-seat.win { box-shadow:0 0 0 4px #4fd18b; }
.dp-name { font-weight:700; font-size:16px; }
.dp-role { color:#667085; font-size:12px; }
.dp-stake { font-size:13px; margin-top:3px; }
.dp-die { width:64px; height:64px; flex:none; border-radius:12px; background:#fff; border:2px solid #344054; display:grid;
  grid-template:repeat(3,1fr)/repeat(3,1fr); padding:8px; box-shadow:0 3px 0 #344054; }
.dp-die i { display:block; margin:auto; width:12px; height:12px; border-radius:50%; }
.dp-die i.p { background:#1d2330; }
.dp-die.hidden { background:repeating-linear-gradient(45deg,#2f5bd3,#2f5bd3 6px,#2749ad 6px,#2749ad 12px); border-color:#1b3a8c;
  color:#fff; font-size:30px; font-weight:800; display:flex; align-items:center; justify-content:center; }
.dp-die.unseen { opacity:.45; }
.dp-act { display:inline-block; margin-top:4px; padding:1px 8px; border-radius:10px; font-weight:700; font-size:12px; color:#fff; }
.dp-act.fold { background:#667085; } .dp-act.raise { background:#d97706; } .dp-act.call { background:#2f5bd3; }
.dp-act.bad { background:#c0362c; outline:2px solid #7a1b14; }
.dp-won { font-size:18px; font-weight:800; margin-top:2px; }
.dp-won.pos { color:#1f7a4d; } .dp-won.neg { color:#c0362c; } .dp-won.zero { color:#667085; }
.dp-note { font-size:11px; color:#667085; }
.dp-end { padding:8px 12px; border-radius:8px; background:#f2f4f7; font-size:15px; }
.dp-bad { border:2px solid #c0362c; background:#fdf1f0; color:#c0362c; border-radius:8px; padding:8px 10px; font-weight:600; }
.dp-bad b { text-transform:uppercase; }`;
  document.head.appendChild(style);

  function parse(line) {
    const v = String(line || "").trim().split(/\s+/).map(Number);
    return v.length === 4 && v.every(Number.isInteger) ? { b: v[1], state: v[2], d: v[3] } : null;
  }
  const name = (game, s) => game.seats[s] ?? `seat ${s}`;

  // The deal after `step` lines: stakes, actions, dice known, how it ended.
  function deal(game, step) {
    const s = game.summary || {};
    const tr = game.transcript || [];
    const st = { b: s.b, stake: [1, 2], act: [null, null], seen: [false, false], dice: [null, null],
      over: false, last: step > 0 ? tr[step - 1] : null, turn: 0, bad: [null, null] };
    for (const t of tr) { const p = parse(t.line); if (p && st.b === undefined) st.b = p.b; }
    for (let i = 0; i < step && i < tr.length; i++) {
      const t = tr[i];
      const p = parse(t.line);
      const seat = t.seat;
      if (t.kind === "ask" || t.kind === "down") {
        if (p) { st.dice[seat] = p.d; st.seen[seat] = true; }
        const r = String(t.reply ?? "").trim();
        const yes = !t.verdict && /^-?\d+$/.test(r) && !/^-?0+$/.test(r);
        if (t.verdict) st.bad[seat] = t.verdict;
        if (!yes) { st.act[seat] = "fold"; st.over = true; }
        else if (seat === 0) { st.act[0] = "raise"; st.stake[0] = st.b; st.turn = 1; }
        else { st.act[1] = "call"; st.stake[1] = st.b; st.over = true; }
      } else if (p && p.state >= 4) {
        st.dice[seat ^ 1] = p.d; st.seen[seat ^ 1] = true; st.over = true; st.showdown = true;
      } else if (p && (p.state === 2 || p.state === 3)) st.over = true;
    }
    st.done = step >= tr.length;
    if (st.done && Array.isArray(s.dice)) [0, 1].forEach((k) => { if (st.dice[k] === null) st.dice[k] = s.dice[k]; });
    return st;
  }

  function die(h, face, cls) {
    if (!face) return h("div", { class: "dp-die hidden", title: "hidden" }, "?");
    return h("div", { class: `dp-die ${cls || ""}`, title: String(face) },
      [...Array(9).keys()].map((k) => h("i", { class: (PIPS[face] || []).includes(k) ? "p" : "" })));
  }

  function ended(game) {
    const s = game.summary || {};
    const [a, b] = [name(game, 0), name(game, 1)];
    const chips = Math.abs(game.scores[0]);
    if (s.ended === "first folded") return `${a} folded: ${b} wins the small blind (1)`;
    if (s.ended === "second folded") return `${b} folded: ${a} wins the big blind (2)`;
    if (s.ended === "showdown" && Array.isArray(s.dice)) {
      const [x, y] = s.dice;
      if (x === y) return `showdown: ${x} against ${y}, a tie — the pot is split, nobody wins anything`;
      const w = x > y ? 0 : 1;
      return `showdown: ${name(game, w)}'s ${Math.max(x, y)} beats ${Math.min(x, y)} — ${name(game, w)} wins ${chips} from ${name(game, w ^ 1)}`;
    }
    return s.ended || "";
  }

  function render(el, game, step, ctx) {
    const h = ctx.h;
    const st = deal(game, step);
    const pot = st.stake[0] + st.stake[1];
    const seat = (k) => {
      const label = { fold: "folds", raise: `raises to ${st.b}`, call: `calls ${st.b}` }[st.act[k]];
      const won = game.scores[k];
      const unseen = st.done && !st.seen[k];
      return h("div", { class: `dp-seat ${st.done ? (game.ranks[k] === 1 && won > 0 ? "win" : "") : !st.over && st.turn === k ? "act" : ""}` },
        die(h, st.dice[k], unseen ? "unseen" : ""),
        h("div", null, h("div", { class: "dp-name" }, name(game, k)), h("div", { class: "dp-role" }, ROLE[k]),
          h("div", { class: "dp-stake" }, `in the pot: ${st.stake[k]}`),
          label ? h("span", { class: `dp-act ${st.bad[k] ? "bad" : st.act[k]}` }, st.bad[k] ? `${st.bad[k]}: counts as a fold` : label) : null,
          st.done ? h("div", { class: `dp-won ${won > 0 ? "pos" : won < 0 ? "neg" : "zero"}` }, `${won > 0 ? "+" : ""}${won} chips`) : null,
          unseen ? h("div", { class: "dp-note" }, "die never shown (the deal ended in a fold)") : null));
    };
    const kids = [h("div", { class: "dp-top" },
      h("div", { class: "dp-b" }, "B =", h("b", null, st.b ?? "?")),
      h("div", { class: "dp-pot" }, h("span", { class: "dp-chip" }, pot), `pot: ${pot} chips`),
      h("span", { class: "dp-note" }, `blinds 1 and 2; the first player folds or raises to B, the second folds or calls`)),
    h("div", { class: "dp-table" }, seat(0), seat(1))];
    const t = st.last;
    if (t && t.verdict) {
      kids.push(h("div", { class: "dp-bad" }, "⚠ ", h("b", null, t.verdict), ` — ${name(game, t.seat)}'s decision counts as a fold: `,
        h("span", { style: "font-weight:400" }, t.detail || "")));
    }
    if (st.done) kids.push(h("div", { class: "dp-end" }, h("b", null, "How it ended: "), ended(game)));
    else kids.push(h("div", { class: "dp-end" }, describe(game, step)));
    el.append(h("div", { class: "dp" }, kids));
  }

  function describe(game, step) {
    const s = game.summary || {};
    const st = deal(game, step);
    const b = st.b;
    if (step === 0) return `B = ${b} is announced; ${name(game, 0)} posts the small blind (1), ${name(game, 1)} the big blind (2)`;
    const t = (game.transcript || [])[step - 1];
    if (!t) return null;
    const n = name(game, t.seat);
    const p = parse(t.line);
    const fault = t.verdict ? ` — ${t.verdict}, counts as a fold` : "";
    if (t.kind === "down") return `${n} is not running: folds${fault}`;
    if (t.kind === "ask") {
      const dieTxt = p ? ` (die ${p.d})` : "";
      if (st.act[t.seat] === "fold") return `${n}${dieTxt} folds, losing the ${t.seat ? "big blind (2)" : "small blind (1)"}${fault}`;
      return `${n}${dieTxt} ${t.seat === 0 ? `raises to ${b}` : `calls ${b}: showdown`}`;
    }
    if (p && p.state >= 4) {
      const tail = t.seat === 1 && Array.isArray(s.dice) ? ` — ${ended(game).replace(/^showdown: /, "")}` : "";
      return `showdown: ${n} is shown ${name(game, t.seat ^ 1)}'s die, a ${p.d}${tail}`;
    }
    if (p && (p.state === 2 || p.state === 3)) return `${n} is told the opponent folded: ${n} wins ${game.scores[t.seat]}`;
    return `${n}: ${t.kind} ${t.line || ""}`;
  }

  RefereeReplay.register("dice-poker", { render, describe });
})();
