/* referee replay: Bidding Wars (Goofspiel).  One step per transcript line: each turn is
 * the two bids (asked at once, shown face down), the two `reveal` lines (the bids turned
 * over, the prize to the higher card or discarded on a tie), and at the end the `end`
 * lines.  The turns' truth is the summary (prizes in deck order, bids [prize, seat 0's
 * card, seat 1's card] per settled turn, points); the transcript says how far along a
 * step is (docs/protocols/bidding-wars.md). */
(function () {
  "use strict";
  const style = document.createElement("style");
  style.textContent = `
.bw { display:flex; flex-direction:column; gap:12px; }
.bw-top { display:flex; align-items:center; gap:22px; flex-wrap:wrap; }
.bw-round { font-size:15px; min-width:120px; }
.bw-round b { font-size:22px; }
.bw-card { width:38px; height:54px; border-radius:6px; border:1.5px solid #344054; background:#fff; color:#1d2330; display:inline-flex;
  align-items:center; justify-content:center; font-weight:800; font-size:17px; font-variant-numeric:tabular-nums; flex:none; }
.bw-card.big { width:76px; height:106px; font-size:38px; border-width:2px; border-radius:10px; box-shadow:0 3px 0 #344054; }
.bw-card.prize { background:linear-gradient(#fff6d6,#ffe08a); border-color:#b7791f; color:#7a4b00; }
.bw-card.back { background:repeating-linear-gradient(45deg,#2f5bd3,#2f5bd3 5px,#2749ad 5px,#2749ad 10px); border-color:#1b3a8c; color:#fff; }
.bw-card.gone { border-style:dashed; border-color:#d0d5dd; color:#d0d5dd; background:#f8f9fb; }
.bw-card.now { background:#ffe58a; border-color:#b7791f; box-shadow:0 0 0 3px #ffd34d; }
.bw-card.win { box-shadow:0 0 0 4px #4fd18b, 0 3px 0 #344054; }
.bw-card.bad { background:#fdf1f0; border-color:#c0362c; color:#c0362c; }
.bw-card.small { width:24px; height:32px; font-size:12px; border-radius:4px; }
.bw-deck { display:flex; align-items:center; gap:10px; }
.bw-stack { position:relative; width:52px; height:70px; }
.bw-stack .bw-card { position:absolute; width:46px; height:64px; }
.bw-lbl { font-size:11px; color:#667085; text-align:center; }
.bw-bids { display:grid; grid-template-columns:1fr auto 1fr; gap:16px; align-items:center; background:#1f6b45; border-radius:14px;
  padding:12px 18px; color:#fff; }
.bw-bid { display:flex; align-items:center; gap:12px; }
.bw-bid.r { justify-content:flex-end; }
.bw-bid .who { font-weight:700; font-size:15px; }
.bw-outcome { text-align:center; font-size:14px; font-weight:700; min-width:160px; }
.bw-outcome .sub { font-weight:400; font-size:12px; opacity:.85; }
.bw-players { display:grid; grid-template-columns:1fr; gap:8px; }
.bw-player { border:1px solid #d0d5dd; border-radius:10px; padding:8px 10px; }
.bw-player.lead { border-color:#1f7a4d; }
.bw-head { display:flex; align-items:baseline; gap:10px; margin-bottom:6px; flex-wrap:wrap; }
.bw-head .nm { font-weight:700; font-size:15px; }
.bw-head .pts { font-size:20px; font-weight:800; font-variant-numeric:tabular-nums; }
.bw-row { display:flex; gap:4px; flex-wrap:wrap; align-items:center; }
.bw-won { display:flex; gap:3px; flex-wrap:wrap; align-items:center; font-size:12px; color:#667085; }
.bw-bad { border:2px solid #c0362c; background:#fdf1f0; color:#c0362c; border-radius:8px; padding:8px 10px; font-weight:600; }
.bw-bad b { text-transform:uppercase; }
.bw-end { padding:8px 12px; border-radius:8px; background:#f2f4f7; font-size:15px; }
table.bw-hist { border-collapse:collapse; font-size:12px; align-self:flex-start; }
.bw-hist td, .bw-hist th { border:1px solid #e4e7ec; padding:1px 5px; text-align:center; min-width:24px; font-variant-numeric:tabular-nums; }
.bw-hist th { background:#f2f4f7; font-weight:600; text-align:left; }
.bw-hist td.w { background:#d9f2e3; font-weight:800; color:#1f7a4d; }
.bw-hist td.t { color:#98a2b3; }`;
  document.head.appendChild(style);

  const name = (game, s) => game.seats[s] ?? `seat ${s}`;
  function parseBid(line) {
    const m = /^bid (\d+) (\d+) (\d+) (\d+) hand ([\d ]+) theirs ([\d ]+) prizes ?([\d ]*)$/.exec(String(line || "").trim());
    return m ? { prize: +m[1], n: +m[4] } : null;
  }

  // Where the game stands after `step` transcript lines.
  function at(game, step) {
    const s = game.summary || {};
    const tr = game.transcript || [];
    const deck = s.prizes || [];
    const turns = s.bids || [];
    let n = s.cards;
    for (const t of tr) { const p = parseBid(t.line); if (p) { n = n || p.n; break; } }
    n = n || deck.length;
    const st = { n, deck, cur: 0, revealed: false, asked: {}, over: false, fault: null };
    let started = false;
    for (let i = 0; i < step && i < tr.length; i++) {
      const t = tr[i];
      const word = String(t.line || "").split(" ")[0];
      if (t.kind === "ask" || t.kind === "down") {
        if (st.revealed) { st.cur++; st.revealed = false; st.asked = {}; }
        started = true;
        st.asked[t.seat] = t;
        if (t.verdict) st.fault = st.fault || t;
      } else if (word === "reveal") st.revealed = true;
      else if (word === "end") st.over = true;
    }
    st.started = started;
    st.settled = Math.min(turns.length, st.cur + (st.revealed ? 1 : 0));
    st.points = [0, 0];
    st.played = [new Set(), new Set()];
    st.won = [[], []];
    for (let r = 0; r < st.settled; r++) {
      const [k, a, b] = turns[r];
      st.played[0].add(a); st.played[1].add(b);
      if (a !== b) { st.points[a > b ? 0 : 1] += k; st.won[a > b ? 0 : 1].push(k); }
    }
    st.turn = st.revealed ? turns[st.cur] : null; // [prize, a, b] once turned over
    return st;
  }

  function card(h, v, cls, title) { return h("div", { class: `bw-card ${cls || ""}`, title: title || null }, v); }

  function render(el, game, step, ctx) {
    const h = ctx.h;
    const st = at(game, step);
    const tr = game.transcript || [];
    const done = step >= tr.length && tr.length > 0;
    const prize = st.cur < st.deck.length ? st.deck[st.cur] : null;
    const left = st.deck.slice(st.cur + 1);
    const kids = [];
    kids.push(h("div", { class: "bw-top" },
      h("div", { class: "bw-round" }, "Turn ", h("b", null, Math.min(st.cur + 1, st.n)), ` of ${st.n}`),
      h("div", null, card(h, prize ?? "", "big prize", "the prize card turned over"), h("div", { class: "bw-lbl" }, "prize")),
      left.length === 0 ? h("div", { class: "bw-lbl" }, "the prize deck is empty") : h("div", { class: "bw-deck" },
        h("div", null, h("div", { class: "bw-stack" }, left.slice(0, 4).map((_, i) =>
          h("div", { class: "bw-card back", style: `left:${i * 2}px;top:${-i * 2}px` }, i === Math.min(3, left.length - 1) ? left.length : ""))),
        h("div", { class: "bw-lbl" }, `${left.length} face down`)),
        h("div", null, h("div", { class: "bw-lbl", style: "text-align:left" }, "still to come (order hidden)"),
          h("div", { class: "bw-row" }, [...left].sort((x, y) => x - y).map((k) => card(h, k, "small")))))));

    // The two bids: face down while chosen, turned over at the reveal.
    const slot = (s) => {
      const t = st.asked[s];
      let c;
      if (st.turn) c = card(h, st.turn[s + 1], `big ${st.turn[s + 1] > st.turn[2 - s] ? "win" : ""}`);
      else if (t && t.verdict) c = card(h, "✗", "big bad", `${t.verdict}: ${t.detail || ""}`);
      else if (t) c = card(h, "", "big back", "chosen, face down");
      else c = card(h, "", "big gone", "not chosen yet");
      const who = h("div", null, h("div", { class: "who" }, name(game, s)),
        h("div", { class: "bw-lbl", style: "color:#e4e7ec;text-align:inherit" },
          st.turn ? "bid" : t && t.verdict ? t.verdict : t ? "has chosen" : "choosing…"));
      return h("div", { class: `bw-bid ${s ? "r" : ""}` }, s ? [who, c] : [c, who]);
    };
    let outcome = "";
    if (st.turn) {
      const [k, a, b] = st.turn;
      outcome = a === b ? [`tie at ${a}`, h("div", { class: "sub" }, `prize ${k} discarded`)]
        : [`${name(game, a > b ? 0 : 1)} wins ${k}`, h("div", { class: "sub" }, `${Math.max(a, b)} beats ${Math.min(a, b)}`)];
    } else if (st.fault) outcome = "turn not scored";
    else if (st.started && !st.over) outcome = h("div", { class: "sub" }, "bids revealed together");
    kids.push(h("div", { class: "bw-bids" }, slot(0), h("div", { class: "bw-outcome" }, outcome), slot(1)));

    if (st.fault) {
      kids.push(h("div", { class: "bw-bad" }, "⚠ ", h("b", null, st.fault.verdict), ` — ${name(game, st.fault.seat)} forfeits the game: `,
        h("span", { style: "font-weight:400" }, st.fault.detail || "")));
    }
    const lead = st.points[0] === st.points[1] ? -1 : st.points[0] > st.points[1] ? 0 : 1;
    kids.push(h("div", { class: "bw-players" }, [0, 1].map((s) => h("div", { class: `bw-player ${lead === s ? "lead" : ""}` },
      h("div", { class: "bw-head" }, h("span", { class: "nm" }, name(game, s)), h("span", { class: "pts" }, st.points[s]), "points",
        h("span", { class: "bw-won" }, st.won[s].length ? "won:" : "", st.won[s].map((k) => card(h, k, "small prize")))),
      h("div", { class: "bw-row" }, [...Array(st.n).keys()].map((i) => {
        const c = i + 1;
        const now = st.turn && st.turn[s + 1] === c;
        return card(h, c, now ? "now" : st.played[s].has(c) ? "gone" : "", now ? "bid this turn" : st.played[s].has(c) ? "played" : "in hand");
      }))))));

    if (st.settled) {
      const turns = (game.summary.bids || []).slice(0, st.settled);
      const cell = (v, o) => h("td", { class: v > o ? "w" : v === o ? "t" : "" }, v);
      kids.push(h("table", { class: "bw-hist" },
        h("tr", null, h("th", null, "prize"), turns.map(([k]) => h("td", null, k))),
        [0, 1].map((s) => h("tr", null, h("th", null, name(game, s)), turns.map((t) => cell(t[s + 1], t[2 - s]))))));
    }
    if (done || st.over) {
      const s = game.summary || {};
      const f = s.forfeited_by || [];
      const res = game.ranks[0] === game.ranks[1] ? "a draw" : `${name(game, game.ranks[0] === 1 ? 0 : 1)} wins`;
      kids.push(h("div", { class: "bw-end" }, h("b", null, "Game over: "),
        `${name(game, 0)} ${st.points[0]} – ${name(game, 1)} ${st.points[1]}: ${res}`,
        f.length ? ` (forfeited by ${f.map((x) => name(game, x)).join(" and ")})` : "",
        s.discarded ? ` · ${s.discarded} points discarded on ties` : ""));
    }
    el.append(h("div", { class: "bw" }, kids));
  }

  function describe(game, step) {
    const st = at(game, step);
    if (step === 0) return `${st.n} cards each; the prize deck is shuffled and ${st.deck[0] ?? "?"} is turned over`;
    const t = (game.transcript || [])[step - 1];
    if (!t) return null;
    const n = name(game, t.seat);
    const word = String(t.line || "").split(" ")[0];
    const k = st.deck[st.cur];
    if (t.verdict) return `${n}: ${t.verdict} — forfeits the game (turn ${st.cur + 1} is not scored)`;
    if (t.kind === "ask") return `turn ${st.cur + 1}, prize ${k}: ${n} chooses a card, face down`;
    if (word === "reveal" && st.turn) {
      const [p, a, b] = st.turn;
      const who = a === b ? `tie, prize ${p} discarded` : `${name(game, a > b ? 0 : 1)} wins ${p}`;
      return `prize ${p}: ${name(game, 0)} ${a} vs ${name(game, 1)} ${b} — ${who} (${st.points[0]}–${st.points[1]})`;
    }
    if (word === "end") return `${n} is told the game is over: ${String(t.line).slice(4)}`;
    return `${n}: ${t.kind}`;
  }

  RefereeReplay.register("bidding-wars", { render, describe });
})();
