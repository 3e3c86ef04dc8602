"""Features of a Mughal observation after one action, for the `weighted` strategy (strategies/mughal/weighted.py).

FEATURES is the one list (name = the weight's parameter, default, bounds, meaning; docs/strategies.md repeats it,
a test checks). Features read only the tallies-only observation heuristic kernels pass, the action list and cfg.
An action changes one suit of one table, so a decision computes each suit's standing once (`Context`) and an
action re-scores only its own suit.
"""
from sim.jit import njit

from sim.mughal import engine as E
from strategies.mughal._features import NO_CARD, _majority_vt, masked_claims, standing, vt_now

W = 10.0   # every weight's bounds: -W..W (evolve searches inside them)

# name, default weight, meaning. Order = the parameter vector's order. Default weights: hand-picked, then five
# coordinate sweeps against three greedy and three emperor seats (docs/strategies.md); evolve tunes them further.
FEATURES = (
    ("majority_vt", 0.3, "suit-majority VT if the turn were scored now"),
    ("all_suits_vt", 0.3, "all-suits VT if scored now"),
    ("emperor_vt", 0.7, "this emperor's bonus VT if scored now"),
    ("disaster_vt", 1.0, "VT of the Disasters on its table (the penalty: negative)"),
    ("lead_margin", 0.35, "sum over suits of how far its total is above the best other seat's (0 where not ahead)"),
    ("trail_gap", -0.05, "sum over suits of how far its total is below the best other seat's (0 where not behind)"),
    ("lead_margin_x_picks_left", 0.05, "lead_margin x its picks still to come this turn (a lead must last)"),
    ("trail_gap_x_picks_left", 0.0, "trail_gap x its picks still to come this turn (a gap can still close)"),
    ("emperor_lead", 0.32, "(its favoured total - the best other seat's, 0 if not ahead) x the emperor's bonus"),
    ("emperor_gap", -0.12, "(the best other favoured total - its own, 0 if not behind) x the emperor's bonus"),
    ("emperor_lead_x_picks_left", 0.02, "emperor_lead x its picks still to come this turn"),
    ("emperor_gap_x_picks_left", 0.0, "emperor_gap x its picks still to come this turn"),
    ("suits_missing", -0.2, "suits without a card on its table (the all-suits award needs none)"),
    ("suits_missing_x_picks_left", -0.3, "suits_missing x its picks still to come this turn"),
    ("rival_majority_vt", -0.3, "suit-majority VT of all other seats together if scored now"),
    ("rival_emperor_vt", -0.3, "emperor VT of all other seats together if scored now"),
    ("denial", -0.3, "the most VT-if-scored-now the seat receiving this hand gains from one card of it (0 when "
                     "no hand passes)"),
    ("disasters_forced_back", -1.0, "Disasters left in the hand it passes that come back to it as a hand's last "
                                    "card, if every seat dodges Disasters"),
    ("disasters_passed_on", 0.2, "Disasters left in the hand it passes that end with other seats, likewise"),
)
PARAMS = {name: weight for name, weight, _ in FEATURES}
BOUNDS = {name: (-W, W, False) for name, _, _ in FEATURES}


@njit(cache=True, _nrt=False, inline="always")
def of4(k, a0, a1, a2, a3):
    """a_k of four values (k in 0..3): selects, no jump table."""
    return (a0 if k == 0 else a1) if k < 2 else (a2 if k == 2 else a3)


@njit(cache=True, _nrt=False, inline="always")
def _top(top, n, c):
    """(top, holders) after one more seat's claim c."""
    return (c, 1) if c > top else (top, n + (c == top))


@njit(cache=True, _nrt=False, inline="always")
def scan(obs, cfg, p, r, mask):
    """One pass over the other seats: their best claim per suit and favoured, and how many hold it, seen from seat
    p; and the same best claims seen from the receiving seat r (p included)."""
    t0 = t1 = t2 = t3 = tf = -1
    n0 = n1 = n2 = n3 = nf = 0
    x0 = x1 = x2 = x3 = xf = -1   # the best claims of the seats other than p and r
    for q in range(obs[E.O_NP]):
        if q == p:
            continue
        v0, v1, v2, v3, fv = masked_claims(obs, q, mask)
        t0, n0 = _top(t0, n0, v0)
        t1, n1 = _top(t1, n1, v1)
        t2, n2 = _top(t2, n2, v2)
        t3, n3 = _top(t3, n3, v3)
        tf, nf = _top(tf, nf, fv)
        if q != r:
            x0, x1, x2, x3, xf = max(x0, v0), max(x1, v1), max(x2, v2), max(x3, v3), max(xf, fv)
    v0, v1, v2, v3, fv = masked_claims(obs, p, mask)
    # p's favoured total as scoring counts it: its best favoured claim when that claim is eligible at all
    fav = fv if fv >= 1 - cfg[E.CFG_EMP_ZERO] else -1
    return ((t0, t1, t2, t3), (n0, n1, n2, n3), tf, nf,
            (max(x0, v0), max(x1, v1), max(x2, v2), max(x3, v3)), max(xf, fv), fav)


@njit(cache=True, _nrt=False, inline="always")
def suit_terms(cfg, tot, cnt, top, n):
    """One suit, the seat at (tot, cnt) against the others' best claim `top` held by n seats: (its majority VT,
    the others' majority VT, its lead over them, its gap to them)."""
    zero = cfg[E.CFG_ZERO_SCORES]
    mine = _majority_vt(cfg, tot, cnt, top)
    ok = E.eligible(tot, cnt, zero)
    tie = cfg[E.CFG_MAJ_TIE_VT]
    rival = 0
    if top >= 1 - zero:   # the best other claim scores at all
        if ok & (tot == top):
            rival = n * tie
        elif not (ok & (tot > top)):
            rival = cfg[E.CFG_MAJ_VT] if n == 1 else n * tie
    theirs = max(top, 0)
    return mine, rival, max(tot - theirs, 0), max(theirs - tot, 0)


@njit(cache=True, _nrt=False, inline="always")
def emperor_rule(cfg, t):
    """The emperor of turn t (0-based) as emperor_terms reads it: (its bonus alone, its share when tied, its
    bonus, the lowest favoured claim that can win)."""
    return E.emperor_share(cfg, t, 1), E.emperor_share(cfg, t, 2), cfg[E.CFG_EMP_BONUS + t], 1 - cfg[E.CFG_EMP_ZERO]


@njit(cache=True, _nrt=False, inline="always")
def emperor_terms(rule, fav, ofav, nfav):
    """The seat's favoured total `fav` (-1: none) against the others' best favoured claim `ofav` held by nfav
    seats, under emperor_rule `rule`: (its VT, the others' VT, its lead x bonus, its gap x bonus)."""
    sole, tied, bonus, lowest = rule
    mine = (tied if fav == ofav else sole) if (fav >= 0) & (fav >= ofav) else 0
    rival = 0
    if ofav >= lowest:   # the best other favoured claim can win at all
        if fav == ofav:
            rival = nfav * tied
        elif fav < ofav:
            rival = nfav * (sole if nfav == 1 else tied)
    f, o = max(fav, 0), max(ofav, 0)
    return mine, rival, max(f - o, 0) * bonus, max(o - f, 0) * bonus


@njit(cache=True, _nrt=False)
def context(obs, cfg):
    """What every action of a decision is scored against: the others' best claims and holders, the seat's suit
    terms and their sums, favoured totals, the picks still to come, and the receiving seat's standing."""
    p = obs[E.O_SEAT]
    t = obs[E.O_TURN] - 1
    mask = cfg[E.CFG_EMP_MASK + t]
    receiver = obs[E.O_NEXT]
    tops, ns, ofav, nfav, rmax, rfav, fav = scan(obs, cfg, p, receiver, mask)
    b = E.O_TOT + E.NSUITS * p
    c = E.O_CNT + E.NSUITS * p
    s0 = suit_terms(cfg, obs[b], obs[c], tops[0], ns[0])
    s1 = suit_terms(cfg, obs[b + 1], obs[c + 1], tops[1], ns[1])
    s2 = suit_terms(cfg, obs[b + 2], obs[c + 2], tops[2], ns[2])
    s3 = suit_terms(cfg, obs[b + 3], obs[c + 3], tops[3], ns[3])
    maj = s0[0] + s1[0] + s2[0] + s3[0]
    riv = s0[1] + s1[1] + s2[1] + s3[1]
    lead = s0[2] + s1[2] + s2[2] + s3[2]
    gap = s0[3] + s1[3] + s2[3] + s3[3]
    missing = (obs[c] == 0) + (obs[c + 1] == 0) + (obs[c + 2] == 0) + (obs[c + 3] == 0)
    step = obs[E.O_STEP]
    picks_left = cfg[E.CFG_HAND] - step if step > 0 else cfg[E.CFG_HAND]   # declarations come before every pick
    return (p, emperor_rule(cfg, t), mask, tops, ns, maj, riv, lead, gap, missing, fav, ofav, nfav, picks_left,
            (s0, s1, s2, s3), standing(obs, cfg, receiver, rmax, rfav))


@njit(cache=True, _nrt=False, inline="always")
def position(obs, cfg, ctx, k, level, disaster):
    """The seat's features after putting a card of `level` on its table in suit k (disaster: a Disaster; k and
    level are then ignored): (majority_vt, all_suits_vt, emperor_vt, disaster_vt, lead_margin, trail_gap,
    emperor_lead, emperor_gap, suits_missing, rival_majority_vt, rival_emperor_vt)."""
    p, rule, mask, tops, ns, maj, riv, lead, gap, missing, fav, ofav, nfav, _, old, _ = ctx
    dis = obs[E.O_DIS + p]
    if disaster:
        dis += 1
    else:
        top, n = of4(k, tops[0], tops[1], tops[2], tops[3]), of4(k, ns[0], ns[1], ns[2], ns[3])
        tot, cnt = obs[E.O_TOT + E.NSUITS * p + k], obs[E.O_CNT + E.NSUITS * p + k]
        m0, r0, l0, g0 = of4(k, old[0], old[1], old[2], old[3])
        m1, r1, l1, g1 = suit_terms(cfg, tot + level, cnt + 1, top, n)
        maj += m1 - m0
        riv += r1 - r0
        lead += l1 - l0
        gap += g1 - g0
        missing -= cnt == 0
        if ((mask >> k) & 1 == 1) & E.eligible(tot + level, cnt + 1, cfg[E.CFG_EMP_ZERO]):
            fav = max(fav, tot + level)
    emp, remp, elead, egap = emperor_terms(rule, fav, ofav, nfav)
    all_vt = cfg[E.CFG_ALL_VT] if missing == 0 else 0
    return maj, all_vt, emp, cfg[E.CFG_DIS_VT] * dis, lead, gap, elead, egap, missing, riv, remp


@njit(cache=True, _nrt=False, inline="always")
def forced_on_seat(remaining, m, players):
    """Of the m Disasters left in a hand of `remaining` cards passed on, how many come back to this seat if every
    seat dodges (the holders of the last m cards take them)."""
    if m <= 0:
        return 0
    lo = remaining - m + 1   # the first pass (1-based) whose holder is left only Disasters
    return remaining // players - (lo - 1) // players


@njit(cache=True, _nrt=False)
def hand_terms(obs, cfg, actions, n_actions, ctx):
    """What the hand passed on holds, per decision: (passes (0: none passes), the receiver's best gain from one
    card and its slot, its best from another slot, the Disasters in the hand, the cards left after this pick, the
    Disasters that come back (forced_on_seat) when the seat keeps every Disaster and when it takes one)."""
    if actions[0, E.A_TYPE] != E.T_PLACE:
        return 0, 0, -1, 0, 0, 0, 0, 0
    remaining = actions[n_actions - 1, E.A_SLOT]   # places list slots 0..hand length - 1, in order
    if remaining == 0:
        return 0, 0, -1, 0, 0, 0, 0, 0
    receiver = ctx[15]
    base = vt_now(obs, cfg, receiver, NO_CARD, 0)
    none = -(1 << 30)
    best, best_slot, second = none, -1, none
    disasters = 0
    slot, gain = actions[0, E.A_SLOT], none
    for a in range(n_actions + 1):   # rows of a slot are consecutive: close a slot when the next begins
        s = actions[a, E.A_SLOT] if a < n_actions else -1
        if s != slot:
            if gain > best:
                best, best_slot, second = gain, slot, best
            elif gain > second:
                second = gain
            if a == n_actions:
                break
            slot, gain = s, none
        disasters += actions[a, E.A_MASK] == 0
        gain = max(gain, vt_now(obs, cfg, receiver, actions[a, E.A_SUIT], actions[a, E.A_LEVEL]) - base)
    players = obs[E.O_NP]
    return (1, best, best_slot, second, disasters, remaining, forced_on_seat(remaining, disasters, players),
            forced_on_seat(remaining, disasters - 1, players))


@njit(cache=True, _nrt=False, inline="always")
def action_features(obs, cfg, actions, a, ctx, hand):
    """Every feature of action row a, in FEATURES order, given the decision's `context` and `hand_terms`."""
    k = actions[a, E.A_SUIT]
    disaster = k == E.DISASTER
    maj, all_vt, emp, dis, lead, gap, elead, egap, missing, riv, remp = position(
        obs, cfg, ctx, k, actions[a, E.A_LEVEL], disaster)
    picks_left = ctx[13]
    passes, deny_best, deny_slot, deny_second, disasters, remaining, back_keep, back_take = hand
    denial, back, passed = 0, 0, 0
    if passes:
        denial = deny_second if actions[a, E.A_SLOT] == deny_slot else deny_best
        back = back_take if disaster else back_keep
        passed = (disasters - 1 if disaster else disasters) - back
    return (maj, all_vt, emp, dis, lead, gap, lead * picks_left, gap * picks_left, elead, egap,
            elead * picks_left, egap * picks_left, missing, missing * picks_left, riv, remp, denial, back, passed)


@njit(cache=True, _nrt=False)
def features(obs, cfg, actions, n_actions, a):
    """action_features of row a, the decision's terms computed afresh (tests and inspection; the strategy
    computes them once per decision)."""
    ctx = context(obs, cfg)
    return action_features(obs, cfg, actions, a, ctx, hand_terms(obs, cfg, actions, n_actions, ctx))
