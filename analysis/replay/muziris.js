/* Merchants of Muziris: the replay page's board for one frame (analysis/replay/template.html holds the shared
   helpers: chip, counts, coins, backs, seatHead, seatBox, stateOf, view, everything). */
const PRODUCE = {banana: "#e9c46a", cucumber: "#52b788", coconut: "#8d6e63", mango: "#f4a261", ginger: "#c9a66b",
  cinnamon: "#9c4f2e", cardamom: "#84a98c", pepper: "#3d405b"};

function drawBoard(f) {
  const st = stateOf(f), ev = E[f.e];
  const used = ev.event === "use" ? ev.character : null;
  let h = `<div class="card"><h3>Round ${st.round}` + (st.final_round ? ` <span class="badge warn">final round</span>` : "") +
    `</h3><div class="kv"><span>condition <b>${esc(f.condition || "")}</b></span><span>first player <b>seat ${st.first_player}</b></span>` +
    `<span>deck <b>${st.deck}</b></span><span>discard <b>${st.discard}</b></span><span>reshuffles <b>${st.reshuffles}</b></span></div>` +
    `<div class="chars" style="margin-top:8px">`;
  for (const c of st.characters) {
    const cls = (c.markers ? " used" : "") + (c.name === used ? " hot" : "");
    h += `<div class="char${cls}"><div class="cn">${esc(c.name)}</div><div class="row">${c.coins ? coins(c.coins) : '<span class="muted">no coins</span>'}` +
      `${"<span class='pawn' title='marker'></span>".repeat(c.markers)}</div></div>`;
  }
  h += `</div><div class="row" style="margin-top:8px"><span class="lbl">market</span>${counts(st.market, PRODUCE)}</div></div><div class="seats">`;
  for (let p = 0; p < st.coins.length; p++) {
    let inner = seatHead(p, `${f.score[p]}<span class="muted"> coins</span>`);
    inner += `<div class="row"><span class="lbl">hand</span>${everything ? counts(st.hands[p], PRODUCE) : backs(total(st.hands[p]))}</div>`;
    inner += `<div class="row"><span class="lbl">orders</span>${counts(st.play_areas[p], PRODUCE)}</div>`;
    h += seatBox(p, f, inner);
  }
  return h + `</div>`;
}
