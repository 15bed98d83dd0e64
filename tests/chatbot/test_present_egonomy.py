"""The Egonomy presenter: choice trees over real engine positions, texts, narration, refusals.

Positions come from seeded random games (2-4 players, flip-table mode and strict topics on and
off) and from `position` for the exact cases the rulebook describes; texts use the real English
translator. Card labels in `position` are topic letter + number ("A7"); tables 0, 1, 2 show
topics A, B, C (⚖️ Ethics, 🧩 Logic, 🌌 Metaphysics) on their white side.
"""

from __future__ import annotations

import ast
import importlib
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file

import chatbot.present.egonomy as presenter_module
import engine
from chatbot.i18n import Translator, translator
from chatbot.present.base import Option, Options, Presenter
from chatbot.present.egonomy import PRESENTER, EgonomyPresenter, card_text
from chatbot.present.egonomy.choices import ONE_PRESS
from chatbot.rule_help.egonomy import EGONOMY_RULES
from engine.core import IllegalAction
from engine.egonomy import GAME
from engine.egonomy.cards import parse
from engine.egonomy.events import (
    Argued,
    Babbled,
    CutOff,
    Flipped,
    GameEnded,
    LetGo,
    Listened,
    MomentumGained,
    RoundEnded,
    RoundScore,
    RoundStarted,
    Stuck,
)
from engine.egonomy.position import position
from engine.egonomy.rules import Action, State, encode_action
from engine.egonomy.view import View

NAMES = ("Ann", "Bob", "&lt;b&gt;Cy", "Dee")
MAX_ROW = 8
MAX_OPTIONS = 40
MAX_PATH = 24
MAX_LABEL = 32  # LINE shows 20; only let-go groups of 5+ cards come near this


@pytest.fixture(scope="module")
def tr() -> Translator:
    return translator("en")


def random_positions(count: int, seed: int = 1) -> Iterator[State]:
    """Positions of seeded random games, every player count and option set, none finished."""
    rng = random.Random(seed)
    for i in range(count):
        players = 2 + i % 3
        options = {"flip": bool(i % 2), "strict_topics": i % 5 == 0}
        state, _ = GAME.new_game(players, options, seed=rng.randrange(10**6))
        for _ in range(rng.randrange(60)):
            legal = GAME.legal_actions(state, state.turn)
            nxt, _ = GAME.apply(state, state.turn, rng.choice(legal))
            if nxt.over:
                break
            state = nxt
        yield state


def mover(state: State) -> tuple[View, list[Action]]:
    """The private view and legal actions of the player to move."""
    return GAME.view(state, state.turn), GAME.legal_actions(state, state.turn)


def flat(options: Options) -> list[Option]:
    return [o for row in options for o in row]


def back_of(options: Options) -> Option | None:
    """The Back option (the only nav option whose label says Back), if any."""
    backs = [o for o in flat(options) if o.nav is not None and "Back" in o.label]
    assert len(backs) <= 1
    return backs[0] if backs else None


def walk(
    view: View, legal: Sequence[Action], tr: Translator
) -> tuple[dict[str, Options], dict[str, str], set[str]]:
    """Follow every nav option from the top: the options per path, each path's parent, the acts."""
    shown: dict[str, Options] = {}
    parent: dict[str, str] = {}
    acts: set[str] = set()
    todo = [""]
    while todo:
        path = todo.pop()
        _, options = PRESENTER.hand(view, legal, path, NAMES, tr)
        shown[path] = options
        for option in flat(options):
            if option.act is not None:
                acts.add(option.act)
            elif option.nav is not None and option is not back_of(options):
                assert option.nav not in shown, f"{option.nav} reached twice"
                parent[option.nav] = path
                todo.append(option.nav)
    return shown, parent, acts


# --- the choice tree -----------------------------------------------------------------------


def test_presenter_meets_the_protocol() -> None:
    presenter: Presenter = PRESENTER
    assert isinstance(PRESENTER, EgonomyPresenter)
    assert presenter.game == GAME.spec.name == "egonomy"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_choice_tree_reaches_every_legal_action_and_nothing_else(
    seed: int, tr: Translator
) -> None:
    for state in random_positions(80, seed):
        view, legal = mover(state)
        _, _, acts = walk(view, legal, tr)
        assert {GAME.decode_action(code) for code in acts} <= set(legal)
        assert acts == {encode_action(a) for a in legal}


def test_back_goes_to_the_step_it_came_from_and_the_top_has_none(tr: Translator) -> None:
    deep = 0
    for state in random_positions(150):
        view, legal = mover(state)
        shown, parent, _ = walk(view, legal, tr)
        assert back_of(shown[""]) is None
        for path, options in shown.items():
            if path:
                back = back_of(options)
                assert back is not None and back.nav == parent[path]
                deep += path.count(".") > 0
    assert deep > 50  # the walk went below the action kinds often


def test_rows_paths_and_labels_stay_within_the_platforms_limits(tr: Translator) -> None:
    for state in random_positions(150, seed=7):
        view, legal = mover(state)
        shown, _, _ = walk(view, legal, tr)
        for path, options in shown.items():
            assert path.isascii() and len(path) <= MAX_PATH
            assert all(0 < len(row) <= MAX_ROW for row in options)
            assert len(flat(options)) <= MAX_OPTIONS
            for option in flat(options):
                assert option.label.strip() and len(option.label) <= MAX_LABEL
                assert (option.nav is None) != (option.act is None)


def test_the_top_level_lists_action_kinds_in_rulebook_order(tr: Translator) -> None:
    """ "1 Babble 2 Cut off 3 Argue 4 Listen 5 Let go 6 Flip the table"."""
    order = ["Babble", "Cut off", "Argue", "Listen", "Let go", "Flip the table"]
    for state in random_positions(60, seed=11):
        view, legal = mover(state)
        _, options = PRESENTER.hand(view, legal, "", NAMES, tr)
        names = [next(n for n in order if o.label.startswith(n)) for o in flat(options)]
        assert names == sorted(names, key=order.index)
        if len(legal) > ONE_PRESS:
            assert len(names) == len({a.kind for a in legal})


def test_a_few_moves_are_one_press_each(tr: Translator) -> None:
    """Up to ONE_PRESS moves: a button per whole move, labelled with its cards and table."""
    seen = 0
    for state in random_positions(200, seed=13):
        view, legal = mover(state)
        if len(set(legal)) > ONE_PRESS:
            continue
        seen += 1
        _, options = PRESENTER.hand(view, legal, "", NAMES, tr)
        acts = [o.act for o in flat(options)]
        assert None not in acts and sorted(acts) == sorted({encode_action(a) for a in legal})
        for option in flat(options):
            action = next(a for a in legal if encode_action(a) == option.act)
            assert all(card_text(c) in option.label for c in action.cards), option.label
    assert seen > 0, "some positions offer few moves"


def test_no_options_when_the_player_is_not_to_act(tr: Translator) -> None:
    """A waiting player's message says only what stays true until they act again (their
    hand and ego; no tables, no whose turn): it is not edited after other players' moves."""
    for state in random_positions(30, seed=5):
        waiting = (state.turn + 1) % state.players
        view = GAME.view(state, waiting)
        assert GAME.legal_actions(state, waiting) == []
        text, options = PRESENTER.hand(view, [], "a", NAMES, tr)
        assert options == ()
        assert "Not your turn yet" in text
        assert NAMES[state.turn] not in text and "Table" not in text


def test_a_stale_path_falls_back_to_the_top_level(tr: Translator) -> None:
    state = position(3, hands=["A1 A2 B3 C9", "A5", "A6"], tables=("", "", "C5 C6"))
    view, legal = mover(state)
    top = PRESENTER.hand(view, legal, "", NAMES, tr)
    for stale in ["b.99", "a.789", "l.0", "f", "zz", "a.12.1-2-3", "x" * 30, "ก", "a.12.0.0"]:
        assert PRESENTER.hand(view, legal, stale, NAMES, tr) == top, stale


def test_a_path_of_an_earlier_position_falls_back_when_the_game_moved_on(tr: Translator) -> None:
    moved = 0
    for state in random_positions(60, seed=13):
        view, legal = mover(state)
        shown, _, _ = walk(view, legal, tr)
        nxt, _ = GAME.apply(state, state.turn, legal[0])
        if nxt.over:
            continue
        view2, legal2 = mover(nxt)
        top = PRESENTER.hand(view2, legal2, "", NAMES, tr)
        kinds = {a.kind for a in legal2}
        for path in shown:
            shown_now = PRESENTER.hand(view2, legal2, path, NAMES, tr)
            codes = {o.act for o in flat(shown_now[1]) if o.act}
            assert codes <= {encode_action(a) for a in legal2}
            if path and path[0] not in kinds:
                assert shown_now == top
                moved += 1
    assert moved > 0


choices_module = importlib.import_module("chatbot.present.egonomy.choices")


@pytest.fixture
def step_by_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """The choice tree as shown when the moves are too many for one press each."""
    monkeypatch.setattr(choices_module, "ONE_PRESS", 0)


def test_a_single_cut_off_plays_directly_from_the_top(tr: Translator) -> None:
    """Cut off: "take the card from a topic table holding exactly one card"."""
    state = position(3, hands=["B5 C9", "A2", "A3"], tables=("A4", "", ""))
    view, legal = mover(state)
    _, options = PRESENTER.hand(view, legal, "", NAMES, tr)
    cut = next(o for o in flat(options) if o.label.startswith("Cut off"))
    assert cut.act == "c0" and "⚖️4" in cut.label


def test_argue_chooses_a_sequence_then_a_table_only_when_more_than_one_fits(
    tr: Translator,
    step_by_step: None,
) -> None:
    """Argue: "play a sequence of two or three cards onto a topic table"."""
    state = position(3, hands=["A1 A2 B3", "A5", "A6"], tables=("", "", "C5"))
    view, legal = mover(state)
    _, top = PRESENTER.hand(view, legal, "", NAMES, tr)
    argue = next(o for o in flat(top) if o.label == "Argue")
    assert argue.nav == "a"
    text, options = PRESENTER.hand(view, legal, "a", NAMES, tr)
    assert "Argue: choose a sequence." in text
    by_label = {o.label: o for o in flat(options)}
    a1, a2, b3 = parse("A1 A2 B3")
    assert by_label["⚖️1 ⚖️2"].act == encode_action(Action("a", 0, (a1, a2)))  # Logic: no match
    two_tables = by_label["⚖️2 🧩3"].nav
    assert two_tables is not None
    text, options = PRESENTER.hand(view, legal, two_tables, NAMES, tr)
    assert "Argue ⚖️2 🧩3: choose a table." in text
    acts = [o.act for o in flat(options) if o.act]
    assert acts == [encode_action(Action("a", t, (a2, b3))) for t in (0, 1)]
    assert back_of(options) == Option("⬅️ Back", nav="a")


def test_babble_asks_for_the_table_when_a_flip_made_two_tables_show_the_topic(
    tr: Translator,
    step_by_step: None,
) -> None:
    """Flip sides (ruling): the back of the Ethics table shows Logic."""
    state = position(3, hands=["B4 C9", "A1", "A2"], flipped=(True, False, False), flip=True)
    view, legal = mover(state)
    _, top = PRESENTER.hand(view, legal, "", NAMES, tr)
    babble = next(o for o in flat(top) if o.label == "Babble")
    _, cards = PRESENTER.hand(view, legal, babble.nav or "", NAMES, tr)
    b4 = next(o for o in flat(cards) if o.label == "🧩4")
    assert b4.nav is not None and next(o for o in flat(cards) if o.label == "🌌9").act
    text, tables = PRESENTER.hand(view, legal, b4.nav, NAMES, tr)
    assert "Babble 🧩4: choose a table." in text
    assert [o.label for o in flat(tables) if o.act] == ["Table 1 🧩", "Table 2 🧩"]
    assert "Table 1 · 🧩 Logic ↩️: (empty)" in text


def test_listen_chooses_the_card_to_take(tr: Translator, step_by_step: None) -> None:
    """Listen: "take one card ... into your hand, and discard the rest face up"."""
    state = position(3, hands=["C9", "A1", "A2"], tables=("A4 A5", "", ""))
    view, legal = mover(state)
    _, top = PRESENTER.hand(view, legal, "", NAMES, tr)
    listen = next(o for o in flat(top) if o.label == "Listen")
    text, options = PRESENTER.hand(view, legal, listen.nav or "", NAMES, tr)
    assert "Listen at Table 1: choose the card to take" in text
    assert [o.label for o in flat(options) if o.act] == ["⚖️4", "⚖️5"]


def test_many_sequences_are_grouped_by_numbers_first(tr: Translator) -> None:
    hand = "A1 B1 C1 A2 B2 C2 A3 B3 C3 A4 B4"
    state = position(3, hands=[hand, "A9", "B9"])
    view, legal = mover(state)
    assert sum(a.kind == "a" for a in legal) > MAX_OPTIONS
    _, _, acts = walk(view, legal, tr)
    assert acts == {encode_action(a) for a in legal}
    _, options = PRESENTER.hand(view, legal, "a", NAMES, tr)
    assert [o.label for o in flat(options)][:-1] == ["12", "23", "34", "123", "234"]


# --- texts ---------------------------------------------------------------------------------


def test_the_hand_is_shown_sorted_by_number_with_the_tables_and_the_turn(tr: Translator) -> None:
    state = position(3, hands=["C1 A9 B5 A1", "A5", "A6"], tables=("", "B7", ""), momentum=True)
    view, legal = mover(state)
    text, _ = PRESENTER.hand(view, legal, "", NAMES, tr)
    assert "<b>Your hand</b> (4): ⚖️1 🌌1 🧩5 ⚖️9" in text
    assert "Table 2 · 🧩 Logic: 🧩7" in text and "Table 1 · ⚖️ Ethics: (empty)" in text
    assert "Momentum!" in text and "Choose an action." in text


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_peek_is_short_and_shows_the_hand(tr: Translator) -> None:
    for state in random_positions(40, seed=17):
        view, _ = mover(state)
        text = PRESENTER.peek(view, tr, 200)
        assert utf16(text) <= 200 and text.startswith(f"Your hand ({len(view.hand)}): ")
        assert all(card_text(c) in text for c in view.hand)
    huge = view._replace(hand=tuple(range(40)) * 2)
    text = PRESENTER.peek(huge, tr, 200)
    assert utf16(text) <= 200 and "⚖️1 ⚖️1" in text and " … · ego ✦ " in text
    assert utf16(PRESENTER.peek(huge, tr, 100)) <= 100, "the platform's pop-up length"


def test_the_table_shows_round_players_tables_discard_and_turn(tr: Translator) -> None:
    state = position(
        3,
        hands=["A1 A2", "B1", "C1 C2 C3"],
        tables=("A5 A6", "", "C9"),
        discard="B2 B3 B4 B5 B6",
        egos=["A7", "", "B8 B9"],
        trophies=[2, 1, 0],
        turn=1,
        first=2,
        momentum=True,
        round=2,
    )
    text = PRESENTER.table(GAME.view(state, None), NAMES, [], tr)
    assert "Round 2 of 3" in text
    assert "Ann: 2 cards in hand · ✦ 1 · 🏆 2" in text
    assert "▶️ <b>Bob</b>: 1 card in hand · ✦ 0 · 🏆 1" in text
    assert "&lt;b&gt;Cy 🎴: 3 cards in hand · ✦ 2 · 🏆 0" in text
    assert "Table 1 · ⚖️ Ethics: ⚖️5 ⚖️6" in text and "Table 2 · 🧩 Logic: (empty)" in text
    assert "Discard pile (5): … 🧩3 🧩4 🧩5 🧩6" in text
    assert "<b>Bob</b> is to act: momentum, one more action!" in text


def test_the_table_narrates_the_last_four_events(tr: Translator) -> None:
    state, log = GAME.new_game(3, {}, seed=3)
    rng = random.Random(3)
    for _ in range(12):
        state, events = GAME.apply(
            state, state.turn, rng.choice(GAME.legal_actions(state, state.turn))
        )
        log += events
    text = PRESENTER.table(GAME.view(state, None), NAMES, log, tr)
    lines = [line for e in log if (line := PRESENTER.narrate(e, NAMES, tr))]
    assert len(lines) > 4
    assert text.splitlines()[-5:] == ["", *(f"• {line}" for line in lines[-4:])]


def test_the_public_table_never_shows_a_card_in_a_hand(tr: Translator) -> None:
    for state in random_positions(80, seed=19):
        text = PRESENTER.table(GAME.view(state, None), NAMES, [], tr)
        public = {card_text(c) for c in (*state.discard, *sum(state.tables, ()))}
        hidden = {card_text(c) for hand in state.hands for c in hand} - public
        assert not [label for label in hidden if label in text]


def test_escaped_names_appear_as_given(tr: Translator) -> None:
    state = position(3, hands=["A1", "A2", "A3"], turn=2)
    text = PRESENTER.table(GAME.view(state, None), NAMES, [MomentumGained(2)], tr)
    assert "<b>&lt;b&gt;Cy</b>" in text and "&lt;b&gt;Cy gains momentum" in text
    assert "<b><b>" not in text and "&amp;" not in text


# --- narration and announcements -----------------------------------------------------------


def test_every_action_event_is_narrated_in_one_line(tr: Translator) -> None:
    a1, a2, a3, a7, a8, a9, b5 = parse("A1 A2 A3 A7 A8 A9 B5")
    expected = {
        RoundStarted(2, 1, humblest=False): "Round 2 begins; Bob holds the first-player card.",
        RoundStarted(1, 0, humblest=True): "humblest",
        Babbled(0, 0, a1): "Ann babbled ⚖️1 onto Table 1 (⚖️ Ethics).",
        CutOff(1, 0, a1): "Bob cut off ⚖️1 from Table 1: +1 ✦",
        Argued(2, 0, (a1, a2, a3), (a7, a8, a9), fallacy=True): "Fallacy",
        Argued(0, 1, (a1, a2), (), fallacy=False): "Ann argued ⚖️1 ⚖️2 on the empty Table 2.",
        Listened(3, 2, b5, (a1,)): "Dee listened at Table 3: took 🧩5, discarded ⚖️1.",
        LetGo(0, (a7, a8)): "Ann let go of ⚖️7 ⚖️8.",
        Flipped(1, 0, (a1, a2, a3), 1): "it now shows 🧩 Logic",
        MomentumGained(0): "Ann gains momentum and must act again!",
        Stuck(1): "Bob cannot act: the round ends.",
    }
    for event, part in expected.items():
        line = PRESENTER.narrate(event, NAMES, tr)
        assert line and "\n" not in line and part in line, (event, line)
    argued = PRESENTER.narrate(Argued(2, 0, (a1, a2, a3), (a7, a8, a9), True), NAMES, tr)
    assert argued and "collected ⚖️7 ⚖️8 ⚖️9: +3 ✦" in argued
    assert "Fallacy" not in (
        PRESENTER.narrate(Argued(0, 0, (a8, a9), (a1,), False), NAMES, tr) or ""
    )


def test_round_and_game_ends_are_announced_not_narrated(tr: Translator) -> None:
    for players in (2, 3, 4):
        state, _ = GAME.new_game(players, {"flip": players == 3}, seed=players)
        rng = random.Random(players)
        ends: list[RoundEnded | GameEnded] = []
        while not state.over:
            action = rng.choice(GAME.legal_actions(state, state.turn))
            state, events = GAME.apply(state, state.turn, action)
            for e in events:
                if isinstance(e, RoundEnded | GameEnded):
                    ends.append(e)
                else:
                    assert PRESENTER.announce(e, NAMES, tr) is None
        for event in ends:
            assert PRESENTER.narrate(event, NAMES, tr) is None
            text = PRESENTER.announce(event, NAMES, tr)
            assert text and all(name in text for name in NAMES[:players])
        final = ends[-1]
        assert isinstance(final, GameEnded) and isinstance(ends[0], RoundEnded)
        winner = NAMES[final.ranking[0]]
        assert f"<b>{winner}</b> wins" in (PRESENTER.announce(final, NAMES, tr) or "")


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "The game ends after round 2: Ann reached 4 trophies."),
        ("th", "เกมจบหลังรอบที่ 2 เพราะ Ann ได้ถ้วยรางวัลครบ 4 ถ้วยแล้ว"),
        ("ja", "Annがトロフィーを4個集めたので、ラウンド2でゲーム終了です。"),
    ],
)
def test_an_early_end_says_who_reached_the_trophy_target(lang: str, said: str) -> None:
    # Rulebook: "Play 3 rounds, or until a player has 4 trophies."
    names = ["Ann", "Bo", "Cy"]
    early = GameEnded((0, 1, 2), (4, 2, 0), round=2, early=True)
    assert said in (PRESENTER.announce(early, names, translator(lang)) or "")
    full = GameEnded((0, 1, 2), (4, 2, 0), round=3, early=False)
    assert "round 3" not in (PRESENTER.announce(full, names, translator("en")) or "")
    assert "ends after" not in (PRESENTER.announce(full, names, translator("en")) or "")


def test_a_round_end_shows_ego_the_tie_breaking_hand_sum_and_trophies(tr: Translator) -> None:
    scores = (
        RoundScore(1, 1, ego=3, collected=5, left_in_hand=2, hand_sum=4, trophies_won=2),
        RoundScore(0, 2, ego=3, collected=4, left_in_hand=1, hand_sum=9, trophies_won=1),
        RoundScore(2, 3, ego=-1, collected=0, left_in_hand=1, hand_sum=6, trophies_won=0),
    )
    text = PRESENTER.announce(RoundEnded(1, 1, scores, (1, 2, 0)), NAMES, tr) or ""
    assert "Round 1 of 3 is over." in text and "Bob emptied their hand." in text
    assert "1. Bob · ego ✦ 3 (5 collected − 2 in hand) · hand sum 4 · 🏆 +2 → 2" in text
    assert "2. Ann · ego ✦ 3 (4 collected − 1 in hand) · hand sum 9 · 🏆 +1 → 1" in text
    assert (
        "3. &lt;b&gt;Cy · ego ✦ −1 (0 collected − 1 in hand) · 🏆 +0 → 0" in text
    )  # one minus sign: U+2212
    stuck = PRESENTER.announce(RoundEnded(2, None, scores, (1, 2, 0)), NAMES, tr) or ""
    assert "could not act" in stuck


# --- refusals ------------------------------------------------------------------------------


def refusal_codes() -> set[str]:
    """Every code the engine raises: the string literals given to IllegalAction(...)."""
    root = Path(engine.__file__).parent
    codes: set[str] = set()
    for source in (root / "egonomy" / "rules.py", root / "core.py"):
        tree = ast.parse(source.read_text())
        assigned = {
            t.id: node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "IllegalAction"
            ):
                arg = node.args[0]
                if isinstance(arg, ast.Name):
                    arg = assigned[arg.id]
                codes |= {
                    c.value
                    for c in ast.walk(arg)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                }
    return codes


def test_every_refusal_the_engine_raises_is_explained(tr: Translator) -> None:
    codes = refusal_codes()
    assert {"argue_topic", "argue_fewer_cards", "argue_not_higher", "unknown_option"} <= codes
    sections = {s.key for s in EGONOMY_RULES.sections}
    params = {"not_your_turn": {"player": 1}, "player_count": {"min": 2, "max": 4}}
    for code in codes:
        text, section = PRESENTER.explain(code, params.get(code, {}), tr)
        assert text and "{" not in text and section in sections, code
        assert text != PRESENTER.explain("no-such-code", {}, tr)[0], code


def test_refusals_name_the_rule_in_the_rulebooks_words(tr: Translator) -> None:
    text, section = PRESENTER.explain("babble_on_single", {}, tr)
    assert "Single cards never beat each other" in text and section == "babble"
    assert PRESENTER.explain("not_your_turn", {"player": 2}, tr) == ("It's not your turn.", "turn")
    assert PRESENTER.explain("player_count", {"min": 2, "max": 4}, tr)[0] == (
        "Egonomy is for 2–4 players."
    )


def test_a_real_refusal_is_explained(tr: Translator) -> None:
    state = position(3, hands=["A1 A2", "A5", "A6"], tables=("A4", "", ""))
    with pytest.raises(IllegalAction) as refused:
        GAME.apply(state, 0, Action("b", 0, parse("A1")))
    text, section = PRESENTER.explain(refused.value.code, refused.value.params, tr)
    assert "Single cards never beat each other" in text and section == "babble"


MARKERS = {"N_": 0, "gettext": 0, "ngettext": 0, "pgettext": 1}


def literal_messages(source: Path) -> set[str]:
    """Every string literal the module hands to gettext, ngettext, pgettext or N_."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name in MARKERS and len(node.args) > MARKERS[name]:
            arg = node.args[MARKERS[name]]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
    return found


def test_every_message_is_found_by_babel_extraction() -> None:
    """`pybabel extract` with its default keywords (as scripts/i18n runs it) finds them all."""
    sources = sorted(Path(presenter_module.__file__).parent.glob("*.py"))
    extracted = {
        message if isinstance(message, str) else message[0]
        for source in sources
        for _, message, _, _ in extract_from_file("python", str(source))
    }
    literals = set().union(*(literal_messages(source) for source in sources))
    assert len(literals) > 60 and {"Back", "Your hand", "Babble"} <= literals
    assert literals <= extracted, literals - extracted


def test_title_and_lobby_options(tr: Translator) -> None:
    assert PRESENTER.title(tr) == "Egonomy"
    assert PRESENTER.option_label("flip", tr) == "Flip-table mode"
    assert PRESENTER.option_label("strict_topics", tr) == "Strict topics"
    assert {o.name for o in GAME.spec.options} == {"flip", "strict_topics"}
