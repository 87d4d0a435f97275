"""How a card is read from its two index crops (the contract), and the measures used
to judge reads: accuracy, misreads above the threshold, confusions, calibration."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

import pips

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]
CLASS_NAMES = [r + s for s in SUITS for r in RANKS] + ["none"]
NOT_A_CARD = 52
# With no misread at all on validation, still ask God below this confidence.
THRESHOLD_FLOOR = 0.9
# A confident read must be this many times less likely to be wrong, in odds, than the
# surest validation misread. Validation designs are few (four): a design never seen
# may be misread with more confidence than any of them (the held-out misreads of every
# model so far sat above the validation maximum), so the threshold keeps a margin.
ODDS_MARGIN = 10.0


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def combine(tl_logits: np.ndarray, br_logits: np.ndarray, temperature: float,
            whole: np.ndarray | None = None) -> np.ndarray:
    """Per card: the normalised probabilities of the summed log-probabilities of the
    two crops, each softmax(logits / T), plus `whole`, the card reader's term
    (`card_reader_term`), when given."""
    s = log_softmax(tl_logits / temperature) + log_softmax(br_logits / temperature)
    if whole is not None:
        s = s + whole
    return np.exp(log_softmax(s))


def cascade(corners: np.ndarray, both: np.ndarray, below: float | None) -> np.ndarray:
    """The service's reads with a card reader: the corners' read (`corners`) where it
    is at least `below` sure, the read of corners and whole card (`both`) elsewhere
    (everywhere when `below` is None)."""
    if below is None:
        return both
    return np.where((corners.max(1) >= below)[:, None], corners, both)


# A card one of whose crops reads as no card, and the other as a card at least this
# surely, is read from that crop alone (src/vision/classify/read.rs, BLANK_CORNER_LEVEL):
# a lamp's glare can wash one index out to blank paper.
BLANK_CORNER_LEVEL = 0.9


def blank_corner(probs: np.ndarray, tl_logits: np.ndarray, br_logits: np.ndarray,
                 temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """The service's reads of cards with one blank corner (src/vision/classify/read.rs,
    `blank_corner_read`): where `probs` (the corners' combined read) says no card,
    one crop says no card and the other a card at least BLANK_CORNER_LEVEL surely,
    that crop's probabilities. Returns (the reads, which of them came from one crop:
    those are held to the one-corner threshold, not read with the card reader, and
    not looked at again)."""
    p = [np.exp(log_softmax(z / temperature)) for z in (tl_logits, br_logits)]
    none = probs.argmax(1) == NOT_A_CARD

    def legible(a, b):
        return ((a.argmax(1) != NOT_A_CARD) & (a.max(1) >= BLANK_CORNER_LEVEL)
                & (b.argmax(1) == NOT_A_CARD))

    use_tl = none & legible(p[0], p[1])
    use_br = none & legible(p[1], p[0]) & ~use_tl
    out = np.where(use_tl[:, None], p[0], np.where(use_br[:, None], p[1], probs))
    return out, use_tl | use_br


# Cards shorter than this (their outline's longest side, frame pixels) are always
# read from both corners (src/vision/recognizer/pip_check.rs, PIP_CHECK_BELOW).
SURE_CORNER_MIN_HEIGHT = 145.0


def sure_corner_first(probs: np.ndarray, tl_logits: np.ndarray, temperature: float,
                      alone: float | None, heights: np.ndarray | None) -> np.ndarray:
    """The service reads the top-left crop of a card at least SURE_CORNER_MIN_HEIGHT
    tall first, and a card that crop alone reads as a card at least `alone` surely
    (the one-corner threshold) from that crop (src/vision/classify/mod.rs,
    `read_sure_corner_first`): `probs` (the reads of both crops, and of the card
    reader where it reads) with those cards' rows replaced by their top-left crop's
    probabilities. `alone` or `heights` (each card's longest side) None: `probs`
    unchanged."""
    if alone is None or heights is None:
        return probs
    one = np.exp(log_softmax(tl_logits / temperature))
    early = ((one.argmax(1) != NOT_A_CARD) & (one.max(1) >= alone)
             & (np.asarray(heights) >= SURE_CORNER_MIN_HEIGHT))
    return np.where(early[:, None], one, probs)


def card_reader_term(logits: np.ndarray, temperature: float, weight: float) -> np.ndarray:
    """The card reader's part of a read: its log-probabilities at its temperature,
    times its weight (src/vision/classify/mod.rs, `whole_terms`)."""
    return weight * log_softmax(logits / temperature)


# The service's second look at an unsure card read (src/vision/recognizer/second_look.rs): its
# outline as located, shrunk and grown by these factors about its centre, and moved
# by these fractions of its top and left sides.
SECOND_LOOK_SCALE = (0.96, 1.04)
SECOND_LOOK_SHIFT = ((-0.02, -0.02), (0.02, 0.02), (0.02, -0.02), (-0.02, 0.02))


def second_look_cuts(quad: np.ndarray) -> list[np.ndarray]:
    """The cuts of the second look besides the outline itself (corners [TL, TR, BR, BL])."""
    centre = quad.mean(0)
    cuts = [centre + (quad - centre) * s for s in SECOND_LOOK_SCALE]
    u, v = quad[1] - quad[0], quad[3] - quad[0]
    cuts += [quad + du * u + dv * v for du, dv in SECOND_LOOK_SHIFT]
    return [c.astype(np.float32) for c in cuts]


def combine_looks(looks: list[tuple[np.ndarray, np.ndarray]], temperature: float,
                  whole: np.ndarray | None = None) -> np.ndarray:
    """Per card: several looks (each the two crops' logits of one cut of the card)
    combined as the service's second look does: each look's summed log-probabilities,
    averaged over the looks, plus the card reader's term of the outline (read once),
    normalised."""
    s = sum(log_softmax(tl / temperature) + log_softmax(br / temperature) for tl, br in looks)
    s = s / len(looks)
    if whole is not None:
        s = s + whole
    return np.exp(log_softmax(s))


def second_look(first: np.ndarray, looks: np.ndarray, threshold: float,
                one_corner: np.ndarray | None = None) -> np.ndarray:
    """The service's reads after its second look: `first` (probabilities of the first
    look), replaced by `looks` (probabilities of the seven cuts combined) where the
    first read is a card below the threshold and the second look reads a card, unless
    `one_corner` marks it as read from one crop (`blank_corner`)."""
    unsure = (first.argmax(1) != NOT_A_CARD) & (first.max(1) < threshold)
    if one_corner is not None:
        unsure &= ~one_corner
    take = unsure & (looks.argmax(1) != NOT_A_CARD)
    return np.where(take[:, None], looks, first)


def with_odds_margin(confidence: float, margin: float) -> float:
    """The confidence whose odds of being wrong are `margin` times smaller:
    p / (1 - p) multiplied by `margin`."""
    if confidence <= 0.0:
        return 0.0
    if confidence >= 1.0:
        return 1.0
    odds = confidence / (1.0 - confidence) * margin
    return odds / (1.0 + odds)


def choose_threshold(probs: np.ndarray, labels: np.ndarray,
                     odds_margin: float = ODDS_MARGIN) -> tuple[float, dict]:
    """The confirmation threshold: the confidence of the surest validation misread
    (a misread includes "not a card" read as a card) with `odds_margin` on its odds,
    not below THRESHOLD_FLOOR. `odds_margin=1` gives the lowest threshold that no
    validation misread reaches."""
    pred = probs.argmax(1)
    conf = probs.max(1)
    wrong = pred != labels
    worst = float(conf[wrong].max()) if wrong.any() else 0.0
    target = with_odds_margin(worst, odds_margin)
    threshold = max(THRESHOLD_FLOOR, math.ceil((target + 1e-6) * 1e6) / 1e6)
    threshold = min(threshold, 0.999999)
    stats = {
        "reads": int(len(labels)),
        "accuracy": round(float((~wrong).mean()), 6),
        "misreads": int(wrong.sum()),
        "max_misread_confidence": round(worst, 6),
        "odds_margin": odds_margin,
        "correct_needing_confirmation": round(float(((~wrong) & (conf < threshold)).mean()), 6),
    }
    return threshold, stats


def ece(conf: np.ndarray, correct: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error with equal-width confidence bins."""
    edges = np.linspace(0, 1, bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            total += m.mean() * abs(conf[m].mean() - correct[m].mean())
    return float(total)


def report(probs: np.ndarray, labels: np.ndarray, threshold: float,
           groups: np.ndarray | None = None, group_names=None,
           pred: np.ndarray | None = None, asks: np.ndarray | None = None) -> dict:
    """Measures of a set of card reads (combined crops). `pred` and `asks`, when
    given, are reads after the pip check (`pip_check`): the card each read names,
    and whether the check made it ask God whatever its confidence."""
    if pred is None:
        pred = probs.argmax(1)
    conf = probs[np.arange(len(pred)), pred]
    ok = pred == labels
    sure = conf >= threshold
    if asks is not None:
        sure = sure & ~asks
    cards = labels != NOT_A_CARD
    out = {
        "reads": int(len(labels)),
        "top1": round(float(ok.mean()), 6),
        "top1_cards": round(float(ok[cards].mean()), 6) if cards.any() else None,
        "top1_not_a_card": round(float(ok[~cards].mean()), 6) if (~cards).any() else None,
        "misreads": int((~ok).sum()),
        "misreads_above_threshold": int(((~ok) & sure).sum()),
        "correct_needing_confirmation": round(float((ok & ~sure).mean()), 6),
        "ece": round(ece(conf, ok), 6),
        # What a threshold fitted on these reads would start from (choose_threshold).
        "surest_misread": round(float(conf[~ok].max()), 6) if (~ok).any() else None,
    }
    pairs = Counter((CLASS_NAMES[t], CLASS_NAMES[p]) for t, p in zip(labels[~ok], pred[~ok]))
    out["confusions"] = [{"true": t, "read": p, "count": c} for (t, p), c in pairs.most_common(12)]
    if groups is not None:
        per = {}
        for gi in np.unique(groups):
            m = groups == gi
            name = str(group_names[gi]) if group_names is not None else str(gi)
            per[name] = {"reads": int(m.sum()), "top1": round(float(ok[m].mean()), 6),
                         "misreads_above_threshold": int(((~ok) & sure & m).sum())}
        out["per_design"] = per
    return out


# The service's pip check (src/vision/recognizer/pip_check.rs, `check_pips`; model card, "Pips"):
# reads of whole number cards shorter than this (frame pixels) are checked.
PIP_CHECK_BELOW = 145.0
# A read of this rank or more whose card shows FEW_PIPS_AT_MOST pips or fewer is doubted.
FEW_PIPS_FROM_RANK, FEW_PIPS_AT_MOST = 6, 2
NUMBER_RANKS = {str(r): r for r in range(2, 11)}


INK_SUITS = {"red": {"H", "D"}, "black": {"S", "C"}}


def denied_suit(s: np.ndarray, suit: str, below: float, family: str | None) -> str | None:
    """The suit pips favour when their normalised suit log-probabilities `s` leave
    `suit` less likely than `below`, unless they still favour `suit` itself or
    the ink's colour `family` rules the favoured suit out. Mirrors `denied_suit`
    in src/vision/classify/pip_evidence.rs with the recognizer's ink colour filter."""
    if np.exp(s[SUITS.index(suit)]) >= below:
        return None
    favoured = SUITS[int(s.argmax())]
    if favoured == suit or (family in INK_SUITS and favoured not in INK_SUITS[family]):
        return None
    return favoured


def pip_weighed_suit(row: np.ndarray, rank: str, s: np.ndarray, family: str | None) -> str:
    """The suit an unsure read of rank `rank` is offered with once its pips weigh in:
    the suit whose class probability (`row`, the read's 53) times its probability
    from the pips (`s`, the normalised suit sum of `pips.suit_sum`) is greatest,
    among the suits its ink's colour family allows. Mirrors `pips_weighed_suit`."""
    return likeliest(row, [(su, rank + su, s[k]) for k, su in enumerate(SUITS)
                           if family not in INK_SUITS or su in INK_SUITS[family]])


def likeliest(row: np.ndarray, options: list) -> str:
    """Of `options` (a choice, the class name it stands for, the log-likelihood the
    pips give it), the choice whose class the read (`row`, its 53 probabilities) and
    the pips make likeliest together (a class the read rules out counts as 1e-30).
    Mirrors `likeliest` in src/vision/recognizer/pip_check.rs."""
    score = [np.log(max(float(row[CLASS_NAMES.index(name)]), 1e-30)) + from_pips
             for _, name, from_pips in options]
    return options[int(np.argmax(score))][0]


def count_likelihood(histogram: dict, rank: str, count: int) -> float:
    """How likely a card of `rank` shows `count` pips read as a suit, from the
    validation designs' counts (`histogram`: rank -> how many cards showed 0..10),
    each count given one card more so that none is ruled out by a small sample;
    none for a number card showing more pips than its rank (blur merges pips, it
    never adds them). Mirrors `CountHistogram::likelihood`."""
    if rank in NUMBER_RANKS and count > NUMBER_RANKS[rank]:
        return 0.0
    h = histogram[rank]
    return (h[min(count, len(h) - 1)] + 1) / (sum(h) + len(h))


def pip_weighed_rank(row: np.ndarray, suit: str, count: int, histogram: dict) -> str:
    """The rank an unsure read of suit `suit` is offered with once its pip count
    weighs in: the rank whose card's class probability (`row`) times
    `count_likelihood` is greatest. Mirrors `pips_weighed_rank`."""
    return likeliest(row, [(r, r + suit, np.log(max(count_likelihood(histogram, r, count), 1e-30)))
                           for r in histogram])


def pip_verdict(read: int, logits: np.ndarray, settings: dict, family: str | None = None,
                row: np.ndarray | None = None, unsure: bool = False) -> tuple[int, bool]:
    """What the pip check makes of read class `read` given its card's pip logits
    (n x 5, suits S H D C then "not a pip"), the `pip_reader` settings and the
    colour family of its ink (`pips.ink_family`): (the class God is offered, whether
    the read must ask God). `row`: the read's class probabilities; `unsure`: the
    read asks God already. Mirrors `Classifier::read_pips`, the recognizer's ink
    colour filter, `pips_deny_rank`, `pips_weighed_suit`, `pips_correction` and
    `pips_weighed_rank`."""
    name = CLASS_NAMES[read]
    rank, suit = name[:-1], name[-1]
    if rank == "A":
        return ace_verdict(read, logits, settings, family, row, unsure)
    lp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    best = lp.argmax(1)
    is_pip = best != pips.NOT_A_PIP
    count = int(is_pip.sum())
    by_suit = np.bincount(best[is_pip], minlength=4)[:4]
    denies = None
    s = pips.suit_sum(lp, settings.get("min_confidence", 0.0), settings["min_pips"])
    if s is not None:
        denies = denied_suit(s, suit, settings["deny_below"], family)
    r = NUMBER_RANKS[rank]
    deny_rank = count > r or (r >= FEW_PIPS_FROM_RANK and count <= FEW_PIPS_AT_MOST)
    asks = unsure or denies is not None or deny_rank
    new_suit = denies or suit
    if asks and denies is None and s is not None and row is not None:
        new_suit = pip_weighed_suit(row, rank, s, family)
    new_rank = rank
    if 4 * by_suit[SUITS.index(new_suit)] >= 3 * count and r < count <= 10:
        new_rank = str(count)
    hist = settings.get("count_histogram")
    if (asks and hist and row is not None and new_suit == suit and new_rank == rank
            and count <= 10):
        new_rank = pip_weighed_rank(row, suit, count, hist)
    return CLASS_NAMES.index(new_rank + new_suit), bool(denies is not None or deny_rank)


def ace_verdict(read: int, logits: np.ndarray, settings: dict, family: str | None,
                row: np.ndarray | None, unsure: bool) -> tuple[int, bool]:
    """`pip_verdict` for a read ace: its one big pip, read like a number card's
    pips but alone, denies or weighs in for its suit. Only a card showing exactly
    one pip-sized blob is checked: an ace shows one, and more are an ornate ace's
    art or, on an outline that strays over a spread hand, a neighbour's pips.
    Mirrors `Recognizer::check_ace`."""
    name = CLASS_NAMES[read]
    suit = name[-1]
    if len(logits) != 1:
        return read, False
    lp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    s = pips.suit_sum(lp, settings.get("min_confidence", 0.0), 1)
    if s is None:
        return read, False
    denies = denied_suit(s, suit, settings["ace_deny_below"], family)
    new_suit = denies or suit
    if unsure and denies is None and row is not None:
        new_suit = pip_weighed_suit(row, "A", s, family)
    return CLASS_NAMES.index("A" + new_suit), denies is not None


def pip_check(probs: np.ndarray, heights: np.ndarray, pip_logits: list[np.ndarray],
              settings: dict, families=None, threshold: float | None = None,
              asking: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Reads after the service's pip check: (the class of each read, whether the
    check makes it ask God). `heights`: each card's height in the frame; `pip_logits`:
    each card's pip patches read by the pip reader; `families`: each card's ink
    colour family ("red", "black", or "" / None), none known when not given;
    `threshold`: the confirmation threshold, under which a read asks God already
    and is checked at any height (None: only cards under PIP_CHECK_BELOW);
    `asking`: reads that ask God whatever their confidence (read from one corner
    beside a blank one: `evaluate.Recognizer.one_corner_asks`), unsure as the
    service counts them (src/vision/recognizer/pip_check.rs, `needs_confirmation`)."""
    pred = probs.argmax(1).copy()
    asks = np.zeros(len(pred), bool)
    aces = settings.get("ace_deny_below") is not None
    for i, read in enumerate(probs.argmax(1)):
        if read == NOT_A_CARD or (CLASS_NAMES[read][:-1] not in NUMBER_RANKS
                                  and not (aces and CLASS_NAMES[read][:-1] == "A")):
            continue
        unsure = ((threshold is not None and probs[i].max() < threshold)
                  or (asking is not None and bool(asking[i])))
        if heights[i] >= PIP_CHECK_BELOW and not unsure:
            continue
        family = families[i] if families is not None else None
        pred[i], asks[i] = pip_verdict(int(read), pip_logits[i], settings, family or None,
                                       probs[i], unsure)
    return pred, asks
