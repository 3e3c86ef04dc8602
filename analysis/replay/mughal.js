/* Mughal: the replay page's board for one frame (analysis/replay/template.html holds the shared
   helpers: chip, counts, coins, backs, seatHead, seatBox, stateOf, view, everything). */
const SUIT = {military: "#c0392b", building: "#a0522d", culture: "#7d3c98", wealth: "#c9a227", disaster: "#2c3e50",
  undeclared: "#7b8794"};
const LETTER = {M: "military", B: "building", C: "culture", W: "wealth", D: "disaster"};

function suitsOfKind(kind) {
  const code = String(kind).split(" ")[0].replace(/[0-9]/g, "");
  return code.split("/").map(c => LETTER[c] || "undeclared");
}
function mughalChip(card, hot) {
  const label = String(card.kind).split(" ")[0];
  let colour;
  if (card.suit && card.suit !== "undeclared") colour = SUIT[card.suit];
  else {
    const suits = suitsOfKind(card.kind);
    colour = suits.length > 1 ? `linear-gradient(135deg,${suits.map(s => SUIT[s]).join(",")})` : SUIT[suits[0]];
  }
  const title = card.kind + (card.suit ? ` (${card.suit})` : "");
  return `<span class="chip${hot ? " hot" : ""}" style="background:${colour}" title="${esc(title)}">${esc(label)}</span>`;
}
function drawBoard(f) {
  const st = stateOf(f), emp = f.emperor || {};
  const fav = emp.favoured || [];
  const favAll = fav.includes("any") || fav.length >= 4;
  let h = `<div class="card"><h3>Turn ${f.turn}: the emperor</h3><div class="row"><b style="font-size:1.1em">` +
    `${esc(emp.emperor || "")}</b>&nbsp;<span class="badge">${emp.bonus} VT bonus</span>&nbsp;favours ` +
    (favAll ? `<span class="badge">any suit</span>` : fav.map(s => chip(s, SUIT[s] || "#777")).join(" ")) +
    `&nbsp;<span class="badge">hands pass ${emp.direction === "left" ? "left &#x2192; seat+1" : "right &#x2190; seat&minus;1"}</span></div>` +
    `<div class="kv"><span>age <b>${esc(st.age || "-")}</b></span><span>deck <b>${st.deck}</b></span>` +
    `<span>discard <b>${st.discard}</b></span><span>removed <b>${st.removed}</b></span>` +
    `<span>reshuffles <b>${st.reshuffles}</b></span></div></div><div class="seats">`;
  const scored = {};
  (f.scoring || []).forEach(s => { scored[s.seat] = s; });
  const maxTot = Math.max(1, ...st.seats.flatMap(s => Object.values(s.totals)));
  for (const seat of st.seats) {
    const p = seat.seat, vt = f.score[p];
    let inner = seatHead(p, `${vt}<span class="muted"> VT</span>`);
    inner += `<div class="bars">`;
    for (const [suit, t] of Object.entries(seat.totals)) {
      const star = favAll || fav.includes(suit) ? ` <span class="fav" title="favoured">&#x2605;</span>` : "";
      inner += `<span>${suit}${star}</span><span class="bar"><i style="width:${100 * t / maxTot}%;background:${SUIT[suit]}"></i></span><b>${t}</b>`;
    }
    inner += `</div><div class="row"><span class="lbl">table</span>` +
      (seat.table.map(c => mughalChip(c, f.placed[p] === c.id)).join("") || '<span class="muted">empty</span>') + `</div>`;
    inner += `<div class="row"><span class="lbl">hand</span>` +
      (everything ? (seat.hand.map(c => mughalChip(c, false)).join("") || '<span class="muted">empty</span>') : backs(seat.hand.length)) +
      `</div><div class="muted">holds the hand dealt to seat ${seat.hand_dealt_to}</div>`;
    const s = scored[p];
    if (s) {
      const parts = [["majorities", s.majority], ["all suits", s.all_suits], ["emperor", s.emperor], ["disasters", s.disaster]]
        .filter(x => x[1]).map(x => `${x[0]} ${x[1] > 0 ? "+" : ""}${x[1]}`);
      const gained = s.majority + s.all_suits + s.emperor + s.disaster;
      inner += `<div class="row"><span class="badge">${gained >= 0 ? "+" : ""}${gained} VT this turn</span> <span class="muted">${esc(parts.join(" · "))}</span></div>`;
    }
    h += seatBox(p, f, inner);
  }
  return h + `</div>`;
}
