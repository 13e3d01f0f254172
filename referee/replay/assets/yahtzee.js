/* referee replay: Yahtzee.  One step per decision (a transcript entry): the dice that
 * decision saw, the dice it held (or the box it filled), and both scorecards after it.
 * A position line is 34 integers: the asked seat's card (13 boxes + extra-Yahtzee bonus),
 * the opponent's, five dice, the roll number (docs/protocols/yahtzee.md).  The reply is
 * `row << 1` (place) or `mask << 1 | 1` (hold die k when bit k is set, reroll the rest). */
(function () {
  "use strict";
  const BOXES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "3 of a kind", "4 of a kind",
    "Full house", "Sm. straight", "Lg. straight", "Yahtzee", "Chance"];
  const PIPS = [[], [4], [0, 8], [0, 4, 8], [0, 2, 6, 8], [0, 2, 4, 6, 8], [0, 2, 3, 5, 6, 8]];
  const style = document.createElement("style");
  style.textContent = `
.yz { display:flex; flex-wrap:wrap; gap:18px; align-items:flex-start; }
.yz-left { flex:1 1 300px; min-width:280px; }
.yz-turn { font-size:15px; margin-bottom:6px; }
.yz-turn b { font-size:17px; }
.yz-rolls { display:inline-flex; gap:4px; margin-left:8px; vertical-align:middle; }
.yz-rolls span { width:22px; height:22px; border-radius:50%; border:2px solid #98a2b3; display:inline-flex;
  align-items:center; justify-content:center; font-size:12px; color:#98a2b3; font-weight:700; }
.yz-rolls span.on { background:#2f5bd3; border-color:#2f5bd3; color:#fff; }
.yz-dice { display:flex; gap:10px; margin:10px 0 4px; }
.yz-die { position:relative; width:58px; height:58px; border-radius:11px; background:#fff; border:2px solid #344054;
  display:grid; grid-template:repeat(3,1fr)/repeat(3,1fr); padding:7px; box-shadow:0 2px 0 #344054; }
.yz-die i { display:block; margin:auto; width:11px; height:11px; border-radius:50%; }
.yz-die i.p { background:#1d2330; }
.yz-die.held { border-color:#1f7a4d; background:#e3f6ea; box-shadow:0 0 0 3px #9fdcb5, 0 2px 0 #1f7a4d; }
.yz-die.reroll { opacity:.45; transform:rotate(-8deg); }
.yz-die.small { width:30px; height:30px; border-radius:6px; padding:3px; border-width:1.5px; box-shadow:none; }
.yz-die.small i { width:6px; height:6px; }
.yz-die.fresh { border-color:#2f5bd3; background:#eef2fd; }
.yz-tag { display:flex; gap:10px; font-size:11px; height:16px; }
.yz-tag span { width:58px; text-align:center; font-weight:700; color:#1f7a4d; letter-spacing:.5px; }
.yz-tag span.r { color:#98a2b3; }
.yz-act { margin:10px 0; padding:8px 10px; border-radius:8px; background:#f2f4f7; font-size:14px; }
.yz-next { display:flex; gap:6px; align-items:center; color:#667085; font-size:12px; }
.yz-joker { display:inline-block; background:#7a2fd3; color:#fff; font-weight:800; border-radius:5px;
  padding:1px 7px; margin-left:6px; font-size:12px; letter-spacing:.5px; }
.yz-j { display:inline-block; background:#7a2fd3; color:#fff; font-size:9px; font-weight:800; border-radius:3px;
  padding:0 3px; margin-left:4px; vertical-align:middle; }
.yz-bad { border:2px solid #c0362c; background:#fdf1f0; color:#c0362c; border-radius:8px; padding:8px 10px;
  font-weight:600; margin:8px 0; }
.yz-bad b { text-transform:uppercase; }
table.yz-card { border-collapse:collapse; font-size:13px; min-width:300px; }
.yz-card th, .yz-card td { border:1px solid #d0d5dd; padding:2px 8px; height:23px; }
.yz-card th { background:#f2f4f7; }
.yz-card th.act { background:#2f5bd3; color:#fff; }
.yz-card td.v { width:88px; text-align:center; font-variant-numeric:tabular-nums; font-weight:600; }
.yz-card td.v.zero { color:#98a2b3; }
.yz-card td.now { background:#ffe58a; outline:2px solid #d4a106; outline-offset:-2px; }
.yz-card td.bad { background:#fdf1f0; outline:2px solid #c0362c; outline-offset:-2px; color:#c0362c; }
.yz-card tr.sub td { background:#f8f9fb; color:#475467; font-size:12px; }
.yz-card tr.tot td { font-size:15px; font-weight:800; border-top:2px solid #344054; }
.yz-card tr.gap td { border-top:2px solid #344054; }
.yz-card td.winner { color:#1f7a4d; }`;
  document.head.appendChild(style);

  function parse(line) {
    const v = String(line || "").trim().split(/\s+/).map(Number);
    if (v.length !== 34 || v.some((x) => !Number.isInteger(x))) return null;
    return { own: v.slice(0, 14), opp: v.slice(14, 28), dice: v.slice(28, 33), roll: v[33] };
  }
  function action(reply) {
    if (reply === null || reply === undefined) return null;
    const s = String(reply).trim();
    return /^-?\d{1,15}$/.test(s) ? Number(s) : null;
  }
  const fiveKind = (d) => d.every((x) => x === d[0]);
  const upperSum = (c) => c.slice(0, 6).reduce((a, v) => a + (v > 0 ? v : 0), 0);
  const bonus = (c) => (upperSum(c) >= 63 ? 35 : 0);
  const total = (c) => c.slice(0, 13).reduce((a, v) => a + (v > 0 ? v : 0), 0) + bonus(c) + (c[13] || 0);
  const blank = () => [...Array(13).fill(-1), 0];

  // Both cards (by seat) after `step` steps: the next position line carries them, else the summary.
  function cardsAt(game, step) {
    const tr = game.transcript || [];
    for (let i = step; i < tr.length; i++) {
      const p = parse(tr[i].line);
      if (p) return tr[i].seat === 0 ? [p.own, p.opp] : [p.opp, p.own];
    }
    const s = (game.summary || {}).scorecards;
    if (s && s.length === 2) return s;
    for (let i = tr.length - 1; i >= 0; i--) {
      const p = parse(tr[i].line);
      if (p) return tr[i].seat === 0 ? [p.own, p.opp] : [p.opp, p.own];
    }
    return [blank(), blank()];
  }

  // What the decision of transcript entry i was: hold or place, and the joker.
  function decision(game, i) {
    const t = (game.transcript || [])[i];
    if (!t) return null;
    const p = parse(t.line);
    const a = action(t.reply);
    const d = { t, p, a, seat: t.seat, name: game.seats[t.seat] ?? `seat ${t.seat}` };
    if (p && a !== null && a & 1 && a > 0 && a < 64) {
      d.hold = a >> 1;
      d.held = p.dice.filter((_, k) => d.hold >> k & 1);
    } else if (p && a !== null && !(a & 1) && a >= 0 && a <= 24) {
      d.row = a >> 1;
      d.joker = fiveKind(p.dice) && p.own[11] !== -1;
      d.extra = d.joker && p.own[11] === 50;
    }
    return d;
  }

  function die(h, face, cls) {
    const pips = PIPS[face] || [];
    return h("div", { class: `yz-die ${cls || ""}`, title: String(face) },
      [...Array(9).keys()].map((k) => h("i", { class: pips.includes(k) ? "p" : "" })));
  }

  function render(el, game, step, ctx) {
    const h = ctx.h;
    const tr = game.transcript || [];
    const cards = cardsAt(game, step);
    const d = step > 0 ? decision(game, step - 1) : null;
    const left = h("div", { class: "yz-left" });
    const view = d && d.p ? d : (() => { // the start, or a step without a position: the next roll to play
      const i = tr.findIndex((t, j) => j >= step && parse(t.line));
      return i >= 0 ? { p: parse(tr[i].line), seat: tr[i].seat, name: game.seats[tr[i].seat], pending: true } : null;
    })();
    if (view) {
      const filled = view.p.own.slice(0, 13).filter((v) => v !== -1).length;
      left.append(h("div", { class: "yz-turn" }, h("b", null, view.name), ` — turn ${Math.min(13, filled + 1)} of 13, roll`,
        h("span", { class: "yz-rolls" }, [1, 2, 3].map((r) => h("span", { class: r <= view.p.roll ? "on" : "" }, r)))));
      const hold = view.hold;
      left.append(h("div", { class: "yz-dice" }, view.p.dice.map((f, k) =>
        die(h, f, hold === undefined ? "" : hold >> k & 1 ? "held" : "reroll"))));
      if (hold !== undefined) {
        left.append(h("div", { class: "yz-tag" }, view.p.dice.map((_, k) =>
          hold >> k & 1 ? h("span", null, "HELD") : h("span", { class: "r" }, "↻ reroll"))));
      }
    }
    if (d) {
      const t = d.t;
      let act;
      if (t.kind === "down") act = `${d.name} is not running: nothing was asked`;
      else if (d.hold !== undefined) {
        const n = 5 - d.held.length;
        act = t.verdict ? [h("b", null, d.name), ` tries to hold ${d.held.join(" ") || "nothing"} and reroll`] : n === 0 ? [h("b", null, d.name), " holds all five dice (uses a roll)"]
          : [h("b", null, d.name), d.held.length ? ` holds ${d.held.join(" ")}, rerolls ${n} ${n === 1 ? "die" : "dice"}`
            : " rerolls all five dice"];
      } else if (d.row !== undefined) {
        const v = cards[d.seat][d.row];
        act = [h("b", null, d.name), t.verdict ? ` tries ${BOXES[d.row]}` : ` scores ${v} in ${BOXES[d.row]}`,
          d.joker ? h("span", { class: "yz-joker", title: "five of a kind with the Yahtzee box already filled" }, "JOKER") : null,
          d.extra && !t.verdict ? h("span", { class: "yz-joker" }, "+100 Yahtzee bonus") : null];
      } else if (t.kind === "ask") {
        act = [h("b", null, d.name), " answered ", h("code", null, t.reply === null || t.reply === undefined ? "nothing" : String(t.reply))];
      }
      if (act) left.append(h("div", { class: "yz-act" }, act));
      const next = tr[step] && tr[step].seat === d.seat ? parse(tr[step].line) : null;
      if (next && d.hold !== undefined && !t.verdict) {
        left.append(h("div", { class: "yz-next" }, `roll ${next.roll}:`,
          next.dice.map((f, k) => die(h, f, `small ${d.hold >> k & 1 ? "" : "fresh"}`))));
      }
      if (t.verdict) {
        left.append(h("div", { class: "yz-bad" }, "⚠ ", h("b", null, t.verdict), ` — ${d.name} forfeits the game: `,
          h("span", { style: "font-weight:400" }, t.detail || "")));
      }
    } else {
      left.append(h("div", { class: "yz-act" }, "The game starts: ", h("b", null, game.seats[0]), " rolls first."));
    }
    if (step >= tr.length && tr.length) {
      const s = game.summary || {};
      const totals = s.totals || cards.map(total);
      left.append(h("div", { class: "yz-act" }, "Game over: ",
        game.seats.map((n, i) => h("span", { class: game.ranks[i] === 1 ? "winner" : "" }, `${n} ${totals[i]}`)).flatMap((x, i) => i ? [" – ", x] : [x]),
        s.forfeited_by !== null && s.forfeited_by !== undefined ? ` (${game.seats[s.forfeited_by]} forfeited)` : ""));
    }
    el.append(h("div", { class: "yz" }, left, scorecard(h, game, step, cards, d)));
  }

  function scorecard(h, game, step, cards, d) {
    const jokers = new Set();
    for (let i = 0; i < step; i++) {
      const x = decision(game, i);
      if (x && x.joker && !x.t.verdict) jokers.add(`${x.seat}:${x.row}`);
    }
    const actSeat = d ? d.seat : -1;
    const cell = (seat, row) => {
      const v = cards[seat][row];
      const now = d && d.row === row && d.seat === seat;
      const cls = ["v", v === 0 ? "zero" : "", now ? (d.t.verdict ? "bad" : "now") : ""].join(" ");
      return h("td", { class: cls }, now && d.t.verdict ? "✗" : v === -1 ? "" : v,
        jokers.has(`${seat}:${row}`) ? h("span", { class: "yz-j", title: "placed under the joker rule" }, "J") : null);
    };
    const row = (r) => h("tr", { class: r === 6 ? "gap" : "" }, h("td", null, BOXES[r]), cell(0, r), cell(1, r));
    const sub = (label, f, cls) => h("tr", { class: cls || "sub" }, h("td", null, label), [0, 1].map((s) => f(s)));
    const finished = step >= (game.transcript || []).length;
    return h("table", { class: "yz-card" },
      h("tr", null, h("th", null, ""), game.seats.map((n, s) => h("th", { class: s === actSeat ? "act" : "" }, n))),
      [0, 1, 2, 3, 4, 5].map(row),
      sub("Upper sum", (s) => h("td", { class: "v" }, `${upperSum(cards[s])} / 63`)),
      sub("Upper bonus (35)", (s) => h("td", { class: "v" }, bonus(cards[s]) ? 35 : "")),
      [6, 7, 8, 9, 10, 11, 12].map(row),
      sub("Yahtzee bonus", (s) => h("td", { class: "v" }, cards[s][13] ? cards[s][13] : "")),
      sub("Total", (s) => h("td", { class: `v ${finished && game.ranks[s] === 1 ? "winner" : ""}` }, total(cards[s])), "tot"));
  }

  function describe(game, step) {
    if (step === 0) return `${game.seats[0]} rolls first`;
    const d = decision(game, step - 1);
    if (!d) return null;
    const fault = d.t.verdict ? ` — ${d.t.verdict}, forfeits the game` : "";
    if (d.t.kind === "down") return `${d.name} is not running${fault}`;
    if (!d.p) return `${d.name}: ${d.t.kind}${fault}`;
    const dice = d.p.dice.join(" ");
    if (d.hold !== undefined) {
      const n = 5 - d.held.length;
      return `${d.name} (roll ${d.p.roll}: ${dice}) ` + (n === 0 ? "holds all five" : d.held.length
        ? `holds ${d.held.join(" ")}, rerolls ${n} ${n === 1 ? "die" : "dice"}` : "rerolls all five") + fault;
    }
    if (d.row !== undefined) {
      const v = cardsAt(game, step)[d.seat][d.row];
      return `${d.name} (roll ${d.p.roll}: ${dice}) ` + (d.t.verdict ? `tries ${BOXES[d.row]}` : `scores ${v} in ${BOXES[d.row]}`) +
        (d.joker ? " under the joker rule" : "") + (d.extra && !d.t.verdict ? " (+100 bonus)" : "") + fault;
    }
    return `${d.name} (roll ${d.p.roll}: ${dice}) answers ${d.t.reply ?? "nothing"}${fault}`;
  }

  RefereeReplay.register("yahtzee", { render, describe });
})();
