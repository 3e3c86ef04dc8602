/* Mohur: the replay page's board for one frame (analysis/replay/template.html holds the shared
   helpers: chip, counts, coins, backs, seatHead, seatBox, stateOf, view, everything). */
const GOOD = {diamond: "#5dade2", gold: "#d4a017", silver: "#95a5a6", cloth: "#c0392b", spice: "#e67e22",
  leather: "#8d5a2b", coin: "#b7950b"};

function drawBoard(f) {
  const st = stateOf(f), cfg = E[0].config || {};
  const stacks = cfg.tokens || {}, need = cfg.seals_to_win || 2;
  // a market of coins only shows the coins, not "none" beside them
  const goods = Object.entries(st.market || {}).some(([k, n]) => k !== "coin" && n > 0);
  let h = `<div class="card"><h3>Market</h3><div class="row">${goods || !st.market.coin ? counts(st.market, GOOD, ["coin"]) : ""}` +
    `${st.market.coin ? " " + coins(st.market.coin) : ""}</div>` +
    `<div class="kv"><span>deck <b>${st.deck}</b> cards</span><span>round <b>${f.round}</b></span></div></div>`;
  h += `<div class="card"><h3>Token stacks <span class="muted">(top first; faded: sold)</span></h3>`;
  for (const [g, full] of Object.entries(stacks)) {
    const left = (st.tokens[g] || []).length, gone = full.length - left;
    let toks = "";
    full.forEach((v, k) => { toks += `<span class="tok${k < gone ? " gone" : ""}">${v}</span>`; });
    h += `<div class="stack">${chip(g, GOOD[g] || hashColour(g))}${toks}</div>`;
  }
  h += `<div class="row" style="margin-top:8px"><span class="lbl">bonus piles</span>`;
  for (const [pile, left] of Object.entries(f.piles || {})) {
    h += `<span class="badge">sell ${pile}${pile === "5" ? "+" : ""}: ${left} token${left === 1 ? "" : "s"} left</span>`;
  }
  h += `</div></div><div class="seats">`;
  for (let p = 0; p < 2; p++) {
    const hand = st.hands[p], won = f.won[p], score = view(f)[p];
    const stars = "&#x2605;".repeat(f.seals[p]) + "&#x2606;".repeat(Math.max(0, need - f.seals[p]));
    let inner = seatHead(p, `${score}<span class="muted"> rupees</span>`, ` <span class="stars" title="seals">${stars}</span>`);
    inner += `<div class="row"><span class="lbl">hand</span>${everything ? counts(hand, GOOD) : backs(total(hand))}</div>`;
    inner += `<div class="row"><span class="lbl">coffer</span>${coins(st.coffers[p])}</div>`;
    let toks = won.goods.map(v => `<span class="tok">${v}</span>`).join("");
    toks += won.bonus.map(v => everything ? `<span class="tok" title="bonus">${v}</span>` : `<span class="tok hidden" title="bonus, hidden until scoring">?</span>`).join("");
    inner += `<div class="row"><span class="lbl">sold for</span>${toks || '<span class="muted">nothing yet</span>'}</div>`;
    if (f.rupees) inner += `<div class="muted">round total with bonuses and coin token: <b>${f.rupees[p]}</b></div>`;
    h += seatBox(p, f, inner);
  }
  return h + `</div>`;
}
