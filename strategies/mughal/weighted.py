from sim.jit import njit

from sim.registry import strategy
from strategies.mughal._features import consider
from strategies.mughal._weights import BOUNDS, PARAMS, action_features, context, hand_terms


@strategy("mughal", "weighted", params=PARAMS, bounds=BOUNDS, round_robin=False)
@njit(cache=True, _nrt=False)  # per decision, allocates nothing: no reference counting
def weighted(obs, actions, n_actions, params, cfg):
    """Scores every legal action by a weighted sum of named features of its position after the action
    (strategies/mughal/_weights.py FEATURES: VT if scored now by source, suit and emperor leads and gaps, the
    same scaled by the picks still to come, suits missing, the other seats' VT, what the hand it passes offers
    the next seat, where that hand's Disasters end); the weights are its parameters. Highest score wins, ties
    at random."""
    ctx = context(obs, cfg)   # what every action is scored against: once per decision
    hand = hand_terms(obs, cfg, actions, n_actions, ctx)
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):  # streamed argmax: no score array per decision
        (majority_vt, all_suits_vt, emperor_vt, disaster_vt, lead_margin, trail_gap, lead_margin_x_picks_left,
         trail_gap_x_picks_left, emperor_lead, emperor_gap, emperor_lead_x_picks_left, emperor_gap_x_picks_left,
         suits_missing, suits_missing_x_picks_left, rival_majority_vt, rival_emperor_vt, denial,
         disasters_forced_back, disasters_passed_on) = action_features(obs, cfg, actions, a, ctx, hand)
        v = (params[P_MAJORITY_VT] * majority_vt + params[P_ALL_SUITS_VT] * all_suits_vt
             + params[P_EMPEROR_VT] * emperor_vt + params[P_DISASTER_VT] * disaster_vt
             + params[P_LEAD_MARGIN] * lead_margin + params[P_TRAIL_GAP] * trail_gap
             + params[P_LEAD_MARGIN_X_PICKS_LEFT] * lead_margin_x_picks_left
             + params[P_TRAIL_GAP_X_PICKS_LEFT] * trail_gap_x_picks_left
             + params[P_EMPEROR_LEAD] * emperor_lead + params[P_EMPEROR_GAP] * emperor_gap
             + params[P_EMPEROR_LEAD_X_PICKS_LEFT] * emperor_lead_x_picks_left
             + params[P_EMPEROR_GAP_X_PICKS_LEFT] * emperor_gap_x_picks_left
             + params[P_SUITS_MISSING] * suits_missing
             + params[P_SUITS_MISSING_X_PICKS_LEFT] * suits_missing_x_picks_left
             + params[P_RIVAL_MAJORITY_VT] * rival_majority_vt + params[P_RIVAL_EMPEROR_VT] * rival_emperor_vt
             + params[P_DENIAL] * denial + params[P_DISASTERS_FORCED_BACK] * disasters_forced_back
             + params[P_DISASTERS_PASSED_ON] * disasters_passed_on)
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice
