/* referee replay: No-limit Texas Hold'em (referee/games/holdem.py, summary.hands).
 *
 * Steps, across the game's hands: each hand's start (blinds posted, cards dealt — the
 * first hand's is step 0), one per action, and its end (showdown, pots paid).  Hole cards
 * are face up: this replay is for the bots' authors.  The "actions" string is the wire's
 * history (docs/protocols/holdem.md): streets split by "/", entries SEAT LETTER CHIPS
 * (s/b blinds, a ante, f fold, k check, c call, r raise; CHIPS is what the action put in).
 * `entry(game, step)` gives the transcript index of a step's decision (or -1).
 */
(function () {
  "use strict";
  const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const STREET = ["preflop", "flop", "turn", "river"];
  const POSTS = "sba";
  const CSS = `
.hx-head { display:flex; gap:14px; flex-wrap:wrap; align-items:baseline; margin-bottom:6px; }
.hx-head b { font-size:15px; }
.hx-table { position:relative; height:470px; min-width:640px; }
.hx-felt { position:absolute; left:9%; right:9%; top:13%; bottom:13%; border-radius:50%;
  background:radial-gradient(ellipse at center,#2f8d5a 0,#1f6b42 70%,#185a37 100%); border:9px solid #6e4b2a; }
.hx-seat { position:absolute; width:152px; transform:translate(-50%,-50%); background:#fff; border:1px solid #c9ced8;
  border-radius:8px; padding:3px 6px 4px; font-size:12px; line-height:1.35; box-shadow:0 1px 2px rgba(0,0,0,.12); }
.hx-seat .nm { font-weight:600; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
.hx-seat .row { display:flex; justify-content:space-between; align-items:center; gap:4px; }
.hx-seat .stk { font-variant-numeric:tabular-nums; font-weight:600; }
.hx-seat .act { min-height:16px; color:#344054; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
.hx-folded { opacity:.5; } .hx-out { opacity:.35; background:#f2f4f7; }
.hx-actor { box-shadow:0 0 0 3px #2f5bd3; }
.hx-win { box-shadow:0 0 0 3px #2b9a5b; } .hx-win .act { color:#1f7a4d; font-weight:700; }
.hx-fault { box-shadow:0 0 0 3px #c0362c; } .hx-fault .act { color:#c0362c; font-weight:700; }
.hx-badge { display:inline-block; font-size:10px; font-weight:700; border-radius:8px; padding:0 4px; margin-right:3px; background:#e4e7ec; }
.hx-badge.d { background:#fff; border:1.5px solid #1d2330; }
.hx-card { display:inline-block; min-width:25px; padding:1px 2px; margin:0 1px; border:1px solid #b9bec8; border-radius:4px;
  background:#fff; color:#1d2330; font-weight:700; font-size:14px; text-align:center; line-height:1.3; }
.hx-card.red { color:#c92a2a; } .hx-card.back { background:repeating-linear-gradient(45deg,#3b5bdb 0 4px,#5c7cfa 4px 8px); color:transparent; }
.hx-card.hi { border-color:#f08c00; box-shadow:0 0 0 2px #ffd43b; } .hx-card.slot { background:rgba(255,255,255,.12); border:1px dashed rgba(255,255,255,.45); color:transparent; }
.hx-board .hx-card { font-size:18px; min-width:32px; padding:3px 3px; }
.hx-center { position:absolute; left:50%; top:50%; transform:translate(-50%,-50%); text-align:center; color:#fff; width:46%; }
.hx-pot { margin-top:6px; font-weight:600; } .hx-pots { font-size:11.5px; opacity:.95; }
.hx-bet { position:absolute; transform:translate(-50%,-50%); background:#ffe066; color:#1d2330; border:1px solid #e0a800;
  border-radius:10px; padding:0 7px; font-size:12px; font-weight:700; font-variant-numeric:tabular-nums; }
.hx-log { margin-top:8px; font-size:12px; } .hx-log div { margin:1px 0; } .hx-log .st { color:#667085; display:inline-block; width:52px; }
.hx-log .cur { background:#dbe4ff; border-radius:3px; padding:0 2px; } .hx-log .bad { color:#c0362c; font-weight:600; }
`;
  const cache = new WeakMap();

  function ensureStyle(h) {
    if (document.getElementById("hx-style")) return;
    document.head.append(h("style", { id: "hx-style" }, CSS));
  }

  function parse(hand) {
    const entries = [];
    String(hand.actions || "").split("/").forEach((segment, street) => {
      for (const text of segment ? segment.split(",") : []) {
        const m = /^(\d+)([a-z])(\d+(?:\.\d+)?)$/.exec(text);
        if (m) entries.push({ seat: Number(m[1]), letter: m[2], chips: Number(m[3]), street });
      }
    });
    return entries;
  }

  function build(game) {
    let c = cache.get(game);
    if (c) return c;
    const hands = (game.summary && game.summary.hands) || [];
    const transcript = game.transcript || [];
    const decisions = [];
    const shows = {};
    transcript.forEach((t, i) => {
      if (t.kind === "down" || (t.kind === "ask" && /^act /.test(t.line || ""))) decisions.push(i);
      const m = t.kind === "ask" && /^show hand (\d+)/.exec(t.line || "");
      if (m) (shows[m[1]] = shows[m[1]] || []).push(i);
    });
    const steps = [];
    const parsed = hands.map(parse);
    let next = 0;
    parsed.forEach((entries, hi) => {
      let k = 0;
      while (k < entries.length && POSTS.includes(entries[k].letter)) k++;
      steps.push({ hi, k, kind: "deal", t: -1 });
      for (let i = k; i < entries.length; i++) {
        if (POSTS.includes(entries[i].letter)) continue;
        steps.push({ hi, k: i + 1, kind: "act", t: next < decisions.length ? decisions[next++] : -1 });
      }
      steps.push({ hi, k: entries.length, kind: "end", t: -1, shows: shows[hands[hi].hand] || [] });
    });
    c = { steps, parsed, hands };
    cache.set(game, c);
    return c;
  }

  // The table after the first k entries of a hand.
  function tableAt(hand, entries, k) {
    const n = hand.stacks.length;
    const t = { put: Array(n).fill(0), bet: Array(n).fill(0), folded: Array(n).fill(false), label: Array(n).fill(""),
      collected: Array(n).fill(0), allinBefore: Array(n).fill(false), street: 0, last: null, maxBet: 0, texts: [] };
    for (let i = 0; i < k; i++) {
      const e = entries[i];
      if (e.street !== t.street) {
        t.collected = t.put.slice();
        t.allinBefore = t.put.map((p, s) => p > 0 && p >= hand.stacks[s]);
        t.bet.fill(0);
        t.maxBet = 0;
        t.street = e.street;
        t.label = t.label.map((l, s) => (t.folded[s] || t.put[s] >= hand.stacks[s] ? l : ""));
      }
      const s = e.seat;
      const before = t.maxBet;
      t.put[s] += e.chips;
      if (e.letter !== "a") t.bet[s] += e.chips;
      t.maxBet = Math.max(t.maxBet, t.bet[s]);
      const allin = t.put[s] >= hand.stacks[s] && e.chips > 0;
      let text;
      if (e.letter === "s") text = `small blind ${e.chips}`;
      else if (e.letter === "b") text = `big blind ${e.chips}`;
      else if (e.letter === "a") text = `ante ${e.chips}`;
      else if (e.letter === "f") text = "folds";
      else if (e.letter === "k") text = "checks";
      else if (e.letter === "c") text = `calls ${e.chips}`;
      else if (e.letter === "r") text = before === 0 ? `bets ${e.chips}` : `raises to ${t.bet[s]}`;
      else text = `${e.letter} ${e.chips}`;
      if (allin) text += " · all-in";
      if (e.letter === "f") t.folded[s] = true;
      t.label[s] = text;
      t.texts.push(text);
      t.last = { seat: s, text, street: e.street, index: i };
    }
    return t;
  }

  // Pots of the chips already collected, one per all-in level (merged when eligible alike).
  function sidePots(order, t) {
    const levels = [...new Set(order.filter((s) => t.allinBefore[s] && !t.folded[s]).map((s) => t.collected[s]))];
    levels.sort((a, b) => a - b).push(Infinity);
    const pots = [];
    let prev = 0;
    for (const level of levels) {
      let amount = 0;
      for (const s of order) amount += Math.max(0, Math.min(t.collected[s], level) - Math.min(t.collected[s], prev));
      const who = order.filter((s) => !t.folded[s] && t.collected[s] > prev).join(".");
      if (amount > 0) {
        if (pots.length && pots[pots.length - 1].who === who) pots[pots.length - 1].amount += amount;
        else pots.push({ amount, who });
      }
      prev = level;
    }
    return pots;
  }

  function card(h, c, cls) {
    if (!c || c[0] === "?") return h("span", { class: `hx-card back${cls ? " " + cls : ""}` }, "??");
    const red = c[1] === "H" || c[1] === "D";
    return h("span", { class: `hx-card${red ? " red" : ""}${cls ? " " + cls : ""}` }, c[0] === "T" ? "10" : c[0], SUIT[c[1]] || c[1]);
  }
  const split = (text) => (String(text || "").match(/../g) || []);
  const cardText = (c) => (c[0] === "?" ? "??" : (c[0] === "T" ? "10" : c[0]) + (SUIT[c[1]] || c[1]));

  // The category of a five-card hand, from its cards.
  function category(five) {
    const cs = split(five);
    if (cs.length !== 5 || cs.some((c) => c[0] === "?")) return "";
    const ranks = cs.map((c) => "23456789TJQKA".indexOf(c[0])).sort((a, b) => a - b);
    const counts = Object.values(ranks.reduce((m, r) => ((m[r] = (m[r] || 0) + 1), m), {})).sort((a, b) => b - a);
    const flush = cs.every((c) => c[1] === cs[0][1]);
    const straight = counts.length === 5 && (ranks[4] - ranks[0] === 4 || ranks.join() === "0,1,2,3,12");
    if (straight && flush) return "straight flush";
    if (counts[0] === 4) return "four of a kind";
    if (counts[0] === 3 && counts[1] === 2) return "full house";
    if (flush) return "flush";
    if (straight) return "straight";
    if (counts[0] === 3) return "three of a kind";
    if (counts[0] === 2 && counts[1] === 2) return "two pair";
    return counts[0] === 2 ? "pair" : "high card";
  }

  const name = (game, s) => game.seats[s] ?? `seat ${s}`;
  const boardCount = (street) => [0, 3, 4, 5][street] || 0;

  function render(el, game, step, ctx) {
    const h = ctx.h;
    ensureStyle(h);
    const { steps, parsed, hands } = build(game);
    if (!steps.length) { el.append(h("p", { class: "muted" }, "no hands were played")); return; }
    const st = steps[Math.max(0, Math.min(step, steps.length - 1))];
    const hand = hands[st.hi];
    const entries = parsed[st.hi];
    const end = st.kind === "end";
    const t = tableAt(hand, entries, st.k);
    const n = hand.stacks.length;
    const inHand = new Set(hand.order);
    const entry = st.t >= 0 ? (game.transcript || [])[st.t] : null;
    const fault = entry && entry.verdict ? entry : null;
    const won = hand.won || [];
    const shown = new Map((hand.shown || []).map((x) => [x[0], x]));
    const streetShown = end ? 4 : st.kind === "deal" ? 0 : t.street;
    const board = split(hand.board).slice(0, end ? 5 : boardCount(streetShown));
    const potTotal = t.put.reduce((a, b) => a + b, 0);

    el.append(h("div", { class: "hx-head" }, h("b", null, `Hand ${hand.hand} of ${hands.length}`),
      h("span", null, `blinds ${hand.sb}/${hand.bb}`), h("span", null, end ? "end of hand" : STREET[streetShown] || ""),
      h("span", { class: "muted" }, `dealer ${name(game, hand.dealer)}`)));

    const table = h("div", { class: "hx-table" }, h("div", { class: "hx-felt" }));
    const five = new Set();
    // The winners' five cards, highlighted on the board and in their hands.
    if (end) for (const x of hand.shown || []) if (x[2] && won[x[0]] > 0) split(x[2]).forEach((c) => five.add(c));
    const center = h("div", { class: "hx-center" },
      h("div", { class: "hx-board" }, [0, 1, 2, 3, 4].map((i) => board[i] ? card(h, board[i], five.has(board[i]) ? "hi" : "") :
        h("span", { class: "hx-card slot" }, "··"))));
    if (end) {
      center.append(h("div", { class: "hx-pot" }, `pot ${(hand.pots || []).reduce((a, p) => a + p[0], 0)}`),
        h("div", { class: "hx-pots" }, (hand.pots || []).map((p, i) => h("div", null,
          `${hand.pots.length > 1 ? (i ? `side pot ${i}` : "main pot") : "pot"} ${p[0]} → `,
          p[1].map(([s, c]) => `${name(game, s)} ${c}`).join(", ")))));
    } else {
      const pots = sidePots(hand.order, t);
      center.append(h("div", { class: "hx-pot" }, `pot ${potTotal}`));
      if (pots.length > 1) center.append(h("div", { class: "hx-pots" }, pots.map((p, i) => (i ? ` · side ${p.amount}` : `main ${p.amount}`)).join("")));
    }
    table.append(center);

    for (let s = 0; s < n; s++) {
      const angle = Math.PI / 2 + (2 * Math.PI * s) / n;
      const x = 50 + 41 * Math.cos(angle), y = 50 + 40 * Math.sin(angle);
      const playing = inHand.has(s);
      const stack = end ? hand.end_stacks[s] : hand.stacks[s] - t.put[s];
      const cls = ["hx-seat"];
      if (!playing) cls.push("hx-out");
      const acting = !end && t.last && t.last.seat === s && st.kind === "act";
      if (playing && t.folded[s] && !acting) cls.push("hx-folded");
      if (end && won[s] > 0) cls.push("hx-win");
      if (acting) cls.push(fault ? "hx-fault" : "hx-actor");
      let act = playing ? t.label[s] : "out";
      if (end && playing) {
        const sh = shown.get(s);
        act = won[s] > 0 ? `wins ${won[s]}` : t.folded[s] ? "folded" : "";
        if (sh && sh[2]) act += `${act ? " · " : ""}${category(sh[2])}`;
        else if (sh) act += `${act ? " · " : ""}mucked`;
      }
      if (!end && fault && t.last && t.last.seat === s) act = `${fault.verdict}: ${t.label[s]}`;
      const hole = hand.hole[s];
      const badges = [s === hand.dealer ? h("span", { class: "hx-badge d", title: "dealer" }, "D") : null,
        s === hand.sb_seat ? h("span", { class: "hx-badge", title: "small blind" }, "SB") : null,
        s === hand.bb_seat ? h("span", { class: "hx-badge", title: "big blind" }, "BB") : null];
      table.append(h("div", { class: cls.join(" "), style: `left:${x}%;top:${y}%`, title: `seat ${s}: ${name(game, s)}` },
        h("div", { class: "nm" }, badges, name(game, s)),
        h("div", { class: "row" }, h("span", null, playing && hole ? split(hole).map((c) => card(h, c, end && won[s] > 0 && five.has(c) ? "hi" : "")) : ""),
          h("span", { class: "stk" }, playing || stack ? String(stack) : "")),
        h("div", { class: "act" }, act)));
      if (!end && t.bet[s] > 0) {
        table.append(h("div", { class: "hx-bet", style: `left:${50 + 25 * Math.cos(angle)}%;top:${50 + 21 * Math.sin(angle)}%` }, String(t.bet[s])));
      }
    }
    if (fault) {
      el.append(h("div", { class: "verdict" }, h("b", null, fault.verdict), ` ${name(game, fault.seat)}: ${fault.detail || ""}`,
        fault.reply !== undefined && fault.reply !== null ? ` (replied “${String(fault.reply).slice(0, 80)}”)` : ""));
    }
    el.append(table);

    // This hand's actions so far, street by street.
    const log = h("div", { class: "hx-log" });
    const rows = [];
    for (let i = 0; i < st.k; i++) {
      const e = entries[i];
      const row = rows[e.street] || (rows[e.street] = []);
      const label = t.texts[i];
      const cur = i === st.k - 1 && st.kind === "act";
      if (row.length) row.push(", ");
      row.push(h("span", { class: cur ? "cur" : "" }, `${name(game, e.seat)} ${label}`));
    }
    rows.forEach((row, street) => { if (row) log.append(h("div", null, h("span", { class: "st" }, STREET[street]), row)); });
    if (end) {
      for (const [s, hole, fv] of hand.shown || []) {
        log.append(h("div", null, h("span", { class: "st" }, "shows"), `${name(game, s)} `, split(hole).map((c) => card(h, c)),
          fv ? [" → ", split(fv).map((c) => card(h, c)), ` ${category(fv)}`] : " mucked"));
      }
      for (const [s, verdict] of hand.faults || []) log.append(h("div", { class: "bad" }, `${verdict}: ${name(game, s)} (penalised this hand)`));
      for (const i of st.shows || []) {
        const e = game.transcript[i];
        if (e.verdict) log.append(h("div", { class: "verdict" }, h("b", null, e.verdict), ` ${name(game, e.seat)} at the showdown: ${e.detail || ""}`));
      }
    }
    el.append(log);
  }

  function describe(game, step) {
    const { steps, parsed, hands } = build(game);
    const st = steps[step];
    if (!st) return null;
    const hand = hands[st.hi];
    if (st.kind === "deal") {
      return `Hand ${hand.hand}: ${name(game, hand.dealer)} deals; blinds ${hand.sb}/${hand.bb}` +
        (hand.sb_seat >= 0 ? ` posted by ${name(game, hand.sb_seat)} and ${name(game, hand.bb_seat)}` : "");
    }
    if (st.kind === "end") {
      const winners = (hand.won || []).map((c, s) => [s, c]).filter(([, c]) => c > 0);
      const board = split(hand.board).map(cardText).join(" ");
      return `Hand ${hand.hand} ends${board ? ` (board ${board})` : ""}: ` +
        winners.map(([s, c]) => `${name(game, s)} wins ${c}`).join(", ");
    }
    const t = tableAt(hand, parsed[st.hi], st.k);
    return `Hand ${hand.hand}, ${STREET[t.last.street]}: ${name(game, t.last.seat)} ${t.last.text}`;
  }

  RefereeReplay.register("holdem", {
    steps: (game) => Math.max(0, build(game).steps.length - 1),
    render,
    describe,
    entry: (game, step) => { const st = build(game).steps[step]; return st ? st.t : -1; },
  });
})();
