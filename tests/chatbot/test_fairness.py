"""Deals anyone can verify: the lock shown at the start is the key's hash, the key (seed,
salt, seats and options) comes only with the results, and a changed part fails the check."""

from __future__ import annotations

import re

import pytest

from chatbot.core import buttons as b
from chatbot.core.fairness import Deal, commitment, matches, parse, stamp_start
from chatbot.core.model import Command, Message, Press, Reply, User
from chatbot.core.verify import verify
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from tests.conftest import make_service

GAMES = registry()
SPECS = {g.name: g.game.spec for g in GAMES}
EN = translator("en")
DEAL = Deal("ano", 3, (1, True, False, False, False, False, False, False), 123456789, 0xAB)
GROUP, HOST = "tg:-100555", User("tg:1", "Ann", "en")


def test_a_key_opens_its_own_lock_only() -> None:
    lock = DEAL.commitment
    assert len(lock) == 16 and matches(DEAL.key, lock) and matches(DEAL.key, lock.upper())
    for changed in (
        Deal("ano", 3, DEAL.options, DEAL.seed + 1, DEAL.salt),  # another seed
        Deal("ano", 3, (2, *DEAL.options[1:]), DEAL.seed, DEAL.salt),  # another option
        Deal("ano", 3, (1, False, *DEAL.options[2:]), DEAL.seed, DEAL.salt),
        Deal("ano", 4, DEAL.options, DEAL.seed, DEAL.salt),  # another number of seats
        Deal("ano", 3, DEAL.options, DEAL.seed, DEAL.salt + 1),  # another salt
    ):
        assert not matches(changed.key, lock), changed
        assert verify(GAMES, changed.key, lock, EN)[0] is False


def test_a_key_names_its_deal() -> None:
    assert parse(DEAL.key, SPECS) == DEAL
    for junk in ("", "ano", "chess.3..1.ab", "ano.3.1.1.ab", "ano.x.1-1-0-0-0-0-0-0.1.ab"):
        assert parse(junk, SPECS) is None, junk


def test_verify_replays_the_deal_from_the_key() -> None:
    ok, text = verify(GAMES, DEAL.key, DEAL.commitment, EN)
    assert ok and text.startswith("✅")
    game = GAMES["ano"].game
    state, _ = game.new_game(3, DEAL.named_options(game.spec), DEAL.seed)
    hand, _ = GAMES["ano"].presenter.hand(game.view(state, 2), [], "", ["a", "b", "c"], EN)
    first = hand.splitlines()[0]
    assert first in text, "seat 3's dealt hand is shown"
    assert verify(GAMES, DEAL.key, "", EN)[1].startswith("Send the key")


def test_the_stamps_start_from_the_salt_not_the_seed() -> None:
    assert stamp_start(1, 1_000_000) != stamp_start(2, 1_000_000)
    assert stamp_start(DEAL.salt, 1_000_000) != DEAL.seed % 1_000_000


def shown(reply: Reply) -> list[str]:
    """Everything a reply lets anyone read: texts, button data and labels, answers."""
    out = [m.text for m in reply.messages]
    out += [f"{x.label} {x.data} {x.url}" for m in reply.messages for r in m.buttons for x in r]
    if reply.answer is not None:
        out.append(f"{reply.answer.text} {reply.answer.url}")
    return out


@pytest.mark.parametrize("game", ["ano", "egonomy", "ego"])
async def test_the_key_stays_hidden_until_the_results_reveal_it(game: str) -> None:
    """The host sits with computers and never acts: their time runs out at once every turn
    (the game's own rule for an idle player plays), to the end of the game."""
    service = make_service(MemoryStore(), Settings(bot_delay=0, remind_after=0, takeover_after=0))
    await service.handle(Command(chat=GROUP, private=False, user=HOST, name="newgame", args=game))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    start = await service.handle(
        Press(chat=GROUP, private=False, user=HOST, data=b.encode(b.START, stamp=session.stamp))
    )
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    secrets = {str(session.seed), f"{session.salt:016x}", str(session.salt)}
    seen = shown(start)
    results: list[Message] = []
    for _ in range(3000):
        ticked = await service.tick()
        if not ticked:
            break
        for m in ticked:
            if "🔓" in m.text:
                results.append(m)
            else:
                seen += shown(Reply(messages=[m]))
    assert not [s for s in seen for secret in secrets if secret in s], "the deal leaked early"
    (lock,) = re.findall(r"🔒.*?<code>([0-9a-f]{16})</code>", " ".join(seen))
    (end,) = results
    key, shown_lock = re.findall(r"<code>([^<]+)</code>", end.text)
    assert shown_lock == lock and str(session.seed) in key and verify(GAMES, key, lock, EN)[0]


@pytest.mark.parametrize("game", ["ano", "egonomy", "ego"])
async def test_a_stopped_game_reveals_its_key(game: str) -> None:
    """A game ended by /stop is over too: its deal can be checked against the lock shown at the
    start (it is not counted in the standings)."""
    service = make_service(MemoryStore(), Settings(bot_delay=0))
    await service.handle(Command(chat=GROUP, private=False, user=HOST, name="newgame", args=game))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    start = await service.handle(
        Press(chat=GROUP, private=False, user=HOST, data=b.encode(b.START, stamp=session.stamp))
    )
    (lock,) = re.findall(r"🔒.*?<code>([0-9a-f]{16})</code>", " ".join(shown(start)))
    stopped = await service.handle(Command(chat=GROUP, private=False, user=HOST, name="stop"))
    said = stopped.messages[-1].text
    assert said.startswith("The game was stopped by Ann.")
    key, shown_lock = re.findall(r"<code>([^<]+)</code>", said)
    assert shown_lock == lock and verify(GAMES, key, lock, EN)[0]


def _lock(key: str) -> str:
    """The lock made for `key` (anyone can make one: it is the key's hash)."""
    return commitment(key)


BAD_KEYS = {  # each part of a key wrong once, the rest as DEAL has it
    "shape": "ano.3.1-1-0-0-0-0-0-0.123456789",
    "game": "chess.3.1-1-0-0-0-0-0-0.123456789.00000000000000ab",
    "seats": "ano.11.1-1-0-0-0-0-0-0.123456789.00000000000000ab",
    "seats-word": "ano.x.1-1-0-0-0-0-0-0.123456789.00000000000000ab",
    "count": "ano.3.1-1-0-0-0-0-0.123456789.00000000000000ab",
    "option": "ano.3.1000-1-0-0-0-0-0-0.123456789.00000000000000ab",
    "yes-no": "ano.3.1-7-0-0-0-0-0-0.123456789.00000000000000ab",
    "together": "ano.3.1-1-0-1-0-0-0-0.123456789.00000000000000ab",
    "seed": "ano.3.1-1-0-0-0-0-0-0.-5.00000000000000ab",
    "seed-huge": "ano.3.1-1-0-0-0-0-0-0." + "9" * 30 + ".00000000000000ab",
    "salt": "ano.3.1-1-0-0-0-0-0-0.123456789.0x_ab",
}


@pytest.mark.parametrize("lang", ["th", "ja", "en"])
@pytest.mark.parametrize("part", sorted(BAD_KEYS))
def test_a_key_no_game_here_could_have_dealt_is_answered_with_what_is_wrong(
    part: str, lang: str
) -> None:
    """Every field of a key is checked, even with a lock made for it: the answer says which
    part is wrong, in the chat's language, and nothing is dealt (decks=1000 was a crash)."""
    tr = translator(lang)
    key = BAD_KEYS[part]
    assert parse(key, SPECS) is None
    ok, text = verify(GAMES, key, _lock(key), tr)
    usage = tr.gettext("Send the key and the lock from a game's results: /verify key lock")
    assert not ok and text.endswith(usage) and text != usage, text
    assert "✅" not in text and "❌" not in text
    if lang != "en":
        english = verify(GAMES, key, _lock(key), EN)[1]
        assert text.split("\n")[0] != english.split("\n")[0], "translated"


def test_a_lock_that_is_no_lock_is_answered_as_such() -> None:
    ok, text = verify(GAMES, DEAL.key, "<b>not-a-lock</b>", EN)
    assert not ok and text.startswith("A lock is 16 hex digits")


def test_a_deal_of_every_option_value_each_game_offers_is_read_back() -> None:
    for spec in SPECS.values():
        for option in spec.options:
            for value in option.choices:
                named = {o.name: o.default for o in spec.options} | {option.name: value}
                try:
                    spec.resolve_options(named)
                except Exception:
                    continue  # (offered only beside another option's value)
                deal = Deal(spec.name, spec.min_players, tuple(named.values()), 1, 2)
                assert parse(deal.key, SPECS) == deal
