"""The Ano presenter over real engine positions: the table (top card, named suit, pending draw,
who must call Ano), the hand's buttons (same-rank groups, the top-card and suit choices, Draw,
Ano!), "Caught!" on the table only for a forgetter, and every refusal explained."""

from __future__ import annotations

from collections.abc import Iterator

from chatbot.i18n import translator
from chatbot.present.ano import EXPLANATIONS, PRESENTER
from chatbot.present.base import Option, Options
from chatbot.rule_help.ano import ANO_RULES
from engine.ano import GAME
from engine.ano.rules import CALL, CATCH, DRAW, FORGOT_CALL, OWES, Action, State
from tests.engine.ano.helpers import position

EN = translator("en")
NAMES = ("Ann", "Bob", "Cid")


def options(opts: Options) -> Iterator[Option]:
    return (o for row in opts for o in row)


def hand(state: State, seat: int, path: str = "") -> tuple[str, list[Option]]:
    legal = GAME.legal_actions(state, seat)
    text, opts = PRESENTER.hand(GAME.view(state, seat), legal, path, NAMES, EN)
    return text, list(options(opts))


def test_the_table_shows_top_card_named_suit_pending_draw_and_ano_warnings() -> None:
    state = position(
        ["3H 9D", "2C", "9C 4S"], top="JO", suit=3, pending=4, ano=(0, OWES, 0), turn=2
    )
    text = PRESENTER.table(GAME.view(state, None), NAMES, [], EN)
    assert "Top card: 🃏 → ♣️" in text and "draw 4 pending" in text
    assert "Bob: 1 card · must call Ano!" in text and "<b>Cid</b> is to play." in text


def test_a_group_of_one_rank_asks_which_card_goes_on_top() -> None:
    one_order = position(["5H 5S 9D", "2C 7C", "9C 4S"], top="7H")  # only 5♥ fits: bottom
    _, top = hand(one_order, 0)
    assert (
        GAME.decode_action(next(o.act for o in top if o.label == "5♠️ 5♥️") or "").cards[-1]
        == (one_order.hands[0][0])
    )
    state = position(["5H 5S 9D", "2C 7C", "9C 4S"], top="5C")  # both fit: either on top
    _, top = hand(state, 0)
    group = next(o for o in top if o.label == "5♠️ 5♥️")
    assert group.nav and group.act is None
    _, tops = hand(state, 0, group.nav)
    played = [GAME.decode_action(o.act) for o in tops if o.act]
    assert sorted(a.cards[-1] for a in played) == sorted(state.hands[0][:2])
    assert all(not a.call for a in played)


def test_a_joker_asks_for_a_suit_and_draw_shows_only_when_nothing_fits() -> None:
    state = position(["JO 2S", "2C 7C", "9C 4S"], top="7H")
    _, top = hand(state, 0)
    joker = next(o for o in top if o.label == "🃏")
    _, suits = hand(state, 0, joker.nav or "")
    assert [o.label for o in suits][:4] == ["♠️", "♥️", "♦️", "♣️"]
    assert all(GAME.decode_action(o.act).kind != DRAW for o in top if o.act)
    stuck = position(["2S 9D", "2C"], top="7H")
    _, buttons = hand(stuck, 0)
    assert [GAME.decode_action(o.act or "") for o in buttons] == [Action(DRAW)]


def test_ano_button_after_the_play_and_caught_on_the_table_for_a_forgetter() -> None:
    owes = position(["9D", "2C 5S", "9C 4S"], top="7H", ano=(OWES, 0, 0), turn=1)
    _, buttons = hand(owes, 0)
    assert [GAME.decode_action(o.act or "") for o in buttons] == [Action(CALL)]
    legal = [GAME.legal_actions(owes, p) for p in range(3)]
    assert PRESENTER.table_options(GAME.view(owes, None), legal, NAMES, EN) == ()
    forgot = owes._replace(ano=(FORGOT_CALL, 0, 0))
    legal = [GAME.legal_actions(forgot, p) for p in range(3)]
    (row,) = PRESENTER.table_options(GAME.view(forgot, None), legal, NAMES, EN)
    assert [GAME.decode_action(o.act or "") for o in row] == [Action(CATCH, target=0)]
    assert [o.label for o in row] == ["🫵 Caught Ann!"], "the player by name, not a seat number"


def test_every_refusal_points_at_a_rule_section() -> None:
    keys = {s.key for s in ANO_RULES.sections}
    for code, (_, section) in EXPLANATIONS.items():
        assert section in keys, code
        text, _ = PRESENTER.explain(code, {}, EN)
        assert text


RULING_MARK = {
    "en": "House ruling (this bot):",
    "th": "กติกาเฉพาะของบอทนี้:",
    "ja": "【このボットのハウスルール】",
}


def test_the_bots_own_rulings_are_in_the_rule_help_marked_in_every_language() -> None:
    """What the rulebook leaves open and the engine settles (RULINGS.md, Ano, and its rulings
    of 2026-12): a call owed again after a draw or a penalty that leaves an Ano hand, and not
    after a draw of no card; "Caught!" only against an Ano hand; two players' A and J; jump-in
    only with two decks, one card at a time, never a joker; with fumble a wrong play is one
    card; only the drawn card after a draw; drawing what is left; a whole round where nobody
    can play or draw ends the game, ranked by fewest cards or points; tied points share."""
    rulings = {
        "ano": (
            "If a draw or a penalty (a catch too) leaves you cards that could all go down at "
            "once, you owe the call again",
            "a draw that finds no card changes nothing",
            "“Caught!” is offered only against a hand that could win at once",
        ),
        "specials": ("With two players an A changes nothing (it is not a skip)",),
        "chains": ("With two players a J sends the draw back to you",),
        "options": (
            "jump-in is offered only with two decks; one card at a time, never a joker",
            "a wrong play is one card",
            "only the drawn card may still be played",
            "equal points share a place",
        ),
        "end": (
            "the players left rank by fewest cards (in points mode by fewest points)",
            "you draw what there is",
        ),
    }
    for key, phrases in rulings.items():
        ruling = ANO_RULES.section(key).ruling
        assert all(words in ruling for words in phrases), key
        for lang, mark in RULING_MARK.items():
            text = translator(lang).gettext(ruling)
            assert text.startswith(mark) and (lang == "en" or text != ruling), (key, lang)


def test_a_finish_stays_in_the_tables_narration_after_routine_lines() -> None:
    """Two players finish, then a round of draws: updates merged into one edit show only
    the newest routine lines, never dropping who finished (Signal.KEY)."""
    from engine.ano.events import Drew, Finished

    tr = translator("en")
    names = ["Ann", "Bob", "Cid", "Dee"]
    log = [Finished(0, 1), Finished(1, 2), *(Drew(p % 2 + 2, 1, "turn") for p in range(8))]
    state = position(["", "", "2C 3C", "4C 5C"], top="7H", turn=2)
    lines = PRESENTER.table(GAME.view(state, None), names, log, tr).splitlines()
    told = [line for line in lines if line.startswith("• ")]
    finishes = [line for line in told if "Ann" in line or "Bob" in line]
    assert len(finishes) == 2, told
    assert told[:2] == finishes, "in the order they happened, before the routine lines"
    assert len(told) == 2 + 5
