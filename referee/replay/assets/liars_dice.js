/* referee replay: Liar's Dice (referee/games/liars_dice.py, summary.rounds).
 *
 * Steps: one per bid and one per round's end (a challenge, or a penalty); step 0 is the
 * first round before its first bid.  Dice are hidden (?) while a round is bid, and shown
 * when it ends, the dice that count for the bid (its face, and every 1: ones are wild)
 * marked.  `entry(game, step)` gives the transcript index of a step's decision (or -1).
 */
(function () {
  "use strict";
  const FACE = ["", "ones", "twos", "threes", "fours", "fives", "sixes"];
  const ONE = ["", "one", "two", "three", "four", "five", "six"];
  const CSS = `
.ld-head { display:flex; gap:14px; flex-wrap:wrap; align-items:baseline; margin-bottom:8px; }
.ld-head b { font-size:15px; }
.ld-seats { display:flex; flex-wrap:wrap; gap:8px; margin-bottom:10px; }
.ld-seat { flex:1 1 150px; max-width:220px; border:1px solid #c9ced8; border-radius:8px; padding:6px 8px; background:#fff; }
.ld-seat .nm { font-weight:600; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
.ld-seat .sub { font-size:12px; color:#667085; min-height:17px; }
.ld-seat.turn { box-shadow:0 0 0 3px #2f5bd3; } .ld-seat.lost { box-shadow:0 0 0 3px #c0362c; }
.ld-seat.win { box-shadow:0 0 0 3px #2b9a5b; } .ld-seat.out { opacity:.4; background:#f2f4f7; }
.ld-dice { display:flex; gap:4px; margin:5px 0 3px; min-height:28px; }
.ld-die { width:26px; height:26px; border:1.5px solid #475467; border-radius:6px; display:flex; align-items:center; justify-content:center;
  font-weight:700; font-size:15px; background:#fff; }
.ld-die.hidden { background:#e9ecf2; color:#98a2b3; border-color:#b9bec8; }
.ld-die.one { color:#b35c00; } .ld-die.hit { background:#d3f9d8; border-color:#2b9a5b; }
.ld-die.gone { border-style:dashed; border-color:#c0362c; color:#c0362c; background:#fff5f5; }
.ld-bid { font-size:18px; margin:4px 0 8px; } .ld-bid .q { font-weight:700; }
.ld-end { border-left:4px solid #2f5bd3; background:#eef2ff; padding:6px 10px; margin:8px 0; }
.ld-end.pen { border-color:#c0362c; background:#fdf1f0; }
.ld-bids { border-collapse:collapse; font-size:13px; } .ld-bids td { padding:1px 8px; border-bottom:1px solid #eaecf0; }
.ld-bids tr.cur td { background:#dbe4ff; font-weight:600; } .ld-bids td.n { text-align:right; color:#667085; }
.ld-gone { font-size:12px; color:#667085; margin-top:8px; }
`;
  const cache = new WeakMap();

  function ensureStyle(h) {
    if (document.getElementById("ld-style")) return;
    document.head.append(h("style", { id: "ld-style" }, CSS));
  }

  function build(game) {
    let c = cache.get(game);
    if (c) return c;
    const rounds = (game.summary && game.summary.rounds) || [];
    const decisions = [];
    (game.transcript || []).forEach((t, i) => { if (t.kind === "ask" || t.kind === "down") decisions.push(i); });
    const steps = [{ r: 0, j: 0, end: false, t: -1 }];
    let next = 0;
    rounds.forEach((round, r) => {
      (round.bids || []).forEach((_, j) => steps.push({ r, j: j + 1, end: false, t: next < decisions.length ? decisions[next++] : -1 }));
      steps.push({ r, j: (round.bids || []).length, end: true, t: next < decisions.length ? decisions[next++] : -1 });
    });
    // The round each seat went out in (from the dice counts).
    const outIn = {};
    rounds.forEach((round, r) => {
      const loser = ending(round).seat;
      const lost = ending(round).lost;
      if (loser >= 0 && round.dice[loser].length - lost <= 0 && outIn[loser] === undefined) outIn[loser] = r;
    });
    c = { rounds, steps, outIn };
    cache.set(game, c);
    return c;
  }

  // Who lost dice at the end of a round, and how many.
  function ending(round) {
    if (round.challenge) return { seat: round.challenge.loser, lost: 1 };
    if (round.penalty) return { seat: round.penalty.seat, lost: round.penalty.dice_lost || 1 };
    return { seat: -1, lost: 0 };
  }

  const name = (game, s) => game.seats[s] ?? `seat ${s}`;
  const bidText = (q, f) => `${q} ${(q === 1 ? ONE : FACE)[f] ?? f}`;

  function die(h, value, cls) {
    return h("span", { class: `ld-die ${cls || ""}` }, value === null ? "?" : String(value));
  }

  function render(el, game, step, ctx) {
    const h = ctx.h;
    ensureStyle(h);
    const { rounds, steps, outIn } = build(game);
    if (!rounds.length) { el.append(h("p", { class: "muted" }, "no rounds were played")); return; }
    const st = steps[Math.max(0, Math.min(step, steps.length - 1))];
    const round = rounds[st.r];
    const bids = (round.bids || []).slice(0, st.j);
    const last = bids.length ? bids[bids.length - 1] : null;
    const n = round.dice.length;
    const counts = round.dice.map((d) => d.length);
    const inPlay = counts.reduce((a, b) => a + b, 0);
    const end = st.end ? ending(round) : null;
    const final = st.end && step === steps.length - 1;
    const entry = st.t >= 0 ? (game.transcript || [])[st.t] : null;
    const face = last ? last[2] : 0;
    // Who is to act now (after the last bid), for the highlight: the next seat with dice.
    let turn = -1;
    if (!st.end) {
      turn = last ? last[0] : round.starter;
      if (last) do { turn = (turn + 1) % n; } while (!counts[turn] && turn !== last[0]);
    }

    el.append(h("div", { class: "ld-head" }, h("b", null, `Round ${st.r + 1} of ${rounds.length}`),
      h("span", null, `${inPlay} dice in play`), h("span", { class: "muted" }, `${name(game, round.starter)} starts`)));

    const seats = h("div", { class: "ld-seats" });
    for (let s = 0; s < n; s++) {
      const dice = round.dice[s];
      const cls = ["ld-seat"];
      let sub = "";
      if (!counts[s]) { cls.push("out"); sub = `out${outIn[s] !== undefined ? ` in round ${outIn[s] + 1}` : ""}`; }
      if (end && end.seat === s) { cls.push("lost"); sub = counts[s] - end.lost <= 0 ? "loses its last die: out" : `loses ${end.lost} die`; }
      else if (turn === s) { cls.push("turn"); sub = last ? "to bid or challenge" : "to bid"; }
      if (final && game.summary.winner === s) { cls.push("win"); sub = "wins the game"; }
      const mine = bids.filter((b) => b[0] === s);
      if (!sub && mine.length) sub = `bid ${bidText(mine[mine.length - 1][1], mine[mine.length - 1][2])}`;
      const shown = dice.map((d, i) => {
        if (!st.end) return die(h, null, "hidden");
        const hit = face && (d === face || d === 1);
        const gone = end.seat === s && i >= dice.length - end.lost;
        return die(h, d, [d === 1 ? "one" : "", hit ? "hit" : "", gone ? "gone" : ""].join(" "));
      });
      seats.append(h("div", { class: cls.join(" "), title: `seat ${s}: ${name(game, s)}` },
        h("div", { class: "nm" }, name(game, s)),
        h("div", { class: "ld-dice" }, shown),
        h("div", { class: "sub" }, `${counts[s]} ${counts[s] === 1 ? "die" : "dice"}${sub ? " · " + sub : ""}`)));
    }
    el.append(seats);

    if (last) {
      el.append(h("div", { class: "ld-bid" }, "Bid: ", h("span", { class: "q" }, bidText(last[1], last[2])),
        ` by ${name(game, last[0])}`, h("span", { class: "muted" }, ` — at least ${last[1]} of the ${inPlay} dice show ${last[2]} or 1`)));
    } else {
      el.append(h("div", { class: "ld-bid muted" }, "No bid yet this round."));
    }

    if (round.challenge && st.end) {
      const c = round.challenge;
      const holds = c.count >= (last ? last[1] : 0);
      el.append(h("div", { class: "ld-end" }, h("b", null, `${name(game, c.challenger)} challenges `),
        `${name(game, c.bidder)}'s ${last ? bidText(last[1], last[2]) : "bid"}: there ${c.count === 1 ? "is" : "are"} ${c.count} `,
        `(${last ? FACE[last[2]] : ""} and ones), so the bid ${holds ? "holds" : "fails"} and `,
        h("b", null, name(game, c.loser)), " loses a die."));
    } else if (round.penalty && st.end) {
      const p = round.penalty;
      el.append(h("div", { class: "ld-end pen" }, h("b", null, name(game, p.seat)), ` is penalised (${p.verdict}) and loses ${p.dice_lost || 1} die.`));
    }
    if (entry && entry.verdict) {
      el.append(h("div", { class: "verdict" }, h("b", null, entry.verdict), ` ${name(game, entry.seat)}: ${entry.detail || ""}`,
        entry.reply !== undefined && entry.reply !== null ? ` (replied “${String(entry.reply).slice(0, 80)}”)` : ""));
    }
    if (final) el.append(h("div", { class: "ld-end" }, h("b", null, name(game, game.summary.winner)), " is the last with dice and wins."));

    if (bids.length) {
      el.append(h("table", { class: "ld-bids" }, bids.map((b, i) => h("tr", { class: i === bids.length - 1 && !st.end ? "cur" : "" },
        h("td", { class: "n" }, i + 1), h("td", null, name(game, b[0])), h("td", null, bidText(b[1], b[2]))))));
    }
    const gone = (game.summary.eliminated || []).filter((s) => outIn[s] !== undefined && (outIn[s] < st.r || (outIn[s] === st.r && st.end)));
    if (gone.length) el.append(h("div", { class: "ld-gone" }, "Eliminated: ", gone.map((s) => `${name(game, s)} (round ${outIn[s] + 1})`).join(", ")));
  }

  function describe(game, step) {
    const { rounds, steps } = build(game);
    const st = steps[step];
    if (!st || !rounds.length) return null;
    const round = rounds[st.r];
    const head = `Round ${st.r + 1}: `;
    if (!st.end) {
      if (!st.j) return `${head}${name(game, round.starter)} opens the bidding`;
      const b = round.bids[st.j - 1];
      return `${head}${name(game, b[0])} bids ${bidText(b[1], b[2])}`;
    }
    if (round.challenge) {
      const c = round.challenge;
      const b = round.bids[round.bids.length - 1];
      return `${head}${name(game, c.challenger)} challenges ${name(game, c.bidder)}'s ${b ? bidText(b[1], b[2]) : "bid"}: ` +
        `${c.count} counted, ${name(game, c.loser)} loses a die`;
    }
    const p = round.penalty || {};
    return `${head}${name(game, p.seat)} is penalised (${p.verdict}) and loses a die`;
  }

  RefereeReplay.register("liars-dice", {
    steps: (game) => Math.max(0, build(game).steps.length - 1),
    render,
    describe,
    entry: (game, step) => { const st = build(game).steps[step]; return st ? st.t : -1; },
  });
})();
