"""EGO's rules, one test per rule and per ruling, each quoting what it checks.

Quotes come from the rulebook (seed 002, Estonian, with an English gloss) or from the
project's RULINGS.md (section EGO)."""

from __future__ import annotations

import pytest

from engine.core import IllegalAction, Placing, Rng
from engine.ego import GAME
from engine.ego.cards import CARDS
from engine.ego.events import (
    GameEnded,
    Guess,
    Picked,
    Refused,
    Revealed,
    Skipped,
    TurnStarted,
)
from engine.ego.rules import (
    ALL_BROKE,
    BANK_EMPTY,
    BANK_SHORT,
    REFUSE,
    STALLED,
    Action,
    State,
    apply,
    draw_card,
    legal_actions,
    new_game,
    timeout,
)


def game(players: int = 3, from_bank: bool = False, seed: int = 1) -> State:
    state, _ = new_game(players, {"refusal_from_bank": from_bank}, seed)
    return state


def play(state: State, *moves: tuple[int, Action]) -> tuple[State, list[object]]:
    """Apply moves in order; all events."""
    events: list[object] = []
    for player, action in moves:
        state, out = apply(state, player, action)
        events += out
    return state, events


def test_each_player_gets_10_tokens_and_the_bank_10_per_player() -> None:
    """ "Iga mängija võtab ka 10 punast panusežetooni. Lõpuks aseta 10 punast panusežetooni
    mängija kohta žetoonialusele." (Each player also takes 10 red bet tokens. Finally put 10
    bet tokens per player on the tray.) "Kolme mängija korral on mängu alguses žetoonialusel 30
    panusežetooni" (with three players the tray holds 30 tokens at the start)."""
    state = game(3)
    assert state.tokens == (10, 10, 10) and state.bank == 30
    assert game(5).bank == 50


def test_the_lobby_opener_starts_then_join_order() -> None:
    """ "Mängu alustab vanim mängija." (The oldest player starts.) Ruling: in a chat the player
    who opened the lobby starts, then join order."""
    state, events = new_game(4, {}, 7)
    assert state.active == 0 and isinstance(events[0], TurnStarted) and events[0].player == 0
    state, _ = play(state, (0, Action(1)), (1, Action(1, 1)), (2, Action(1, 1)), (3, Action(1, 1)))
    assert state.active == 1 and state.turn == 2


def test_a_random_card_never_repeated_until_all_are_used() -> None:
    """ "Võta (mis tahes) kaart" (take any card). Ruling: a random card, never repeated in a
    game; when every card has been used, the used cards are shuffled and reused."""
    rng, used, seen = Rng(3), (), []
    for _ in range(len(CARDS)):
        card, used = draw_card(used, rng)
        seen.append(card)
    assert sorted(seen) == sorted(c.id for c in CARDS)
    card, used = draw_card(used, rng)
    assert used == (card,)


def test_the_answer_stays_secret_until_the_reveal() -> None:
    """ "Ära avalda oma valikut teistele mängijatele." (Do not reveal your choice to the other
    players.) Only whether a player has locked in is public."""
    state, events = play(game(3), (0, Action(3)), (1, Action(2, 2)))
    assert events == [Picked(0, True), Picked(1, True)]
    for seen_by in (None, 1, 2):
        seen = GAME.view(state, seen_by)
        assert seen.my_answer in (0, 2) and 3 not in (seen.my_answer, seen.my_stake)
    assert GAME.view(state, 0).my_answer == 3
    assert GAME.view(state, None).locked == (True, True, False)


def test_a_stake_is_one_or_two_and_never_more_than_the_player_has() -> None:
    """ "Nüüd valib iga mängija, kas teha panus ühe või kahe panusežetooniga." (Now each player
    chooses whether to bet one or two bet tokens.)"""
    state = game(3)._replace(tokens=(10, 1, 10))
    assert Action(1, 2) not in legal_actions(state, 1) and Action(1, 1) in legal_actions(state, 1)
    with pytest.raises(IllegalAction) as refused:
        apply(state, 1, Action(1, 2))
    assert refused.value.code == "stake_too_high"
    with pytest.raises(IllegalAction):
        apply(state, 2, Action(1, 3))
    with pytest.raises(IllegalAction) as refused:
        apply(state, 0, Action(1, 1))
    assert refused.value.code == "answerer_no_stake"


def test_a_right_guess_gets_its_stake_back_twice() -> None:
    """ "Mängija panustas 2 žetooni ja arvas sinu vastuse ära. Ta saab tagasi oma 2 žetooni +
    aluselt juurde veel 2 žetooni." (A player bet 2 tokens and guessed your answer. They get
    back their 2 tokens + 2 more from the tray.)"""
    state, events = play(game(3), (0, Action(2)), (1, Action(2, 2)), (2, Action(2, 1)))
    revealed = next(e for e in events if isinstance(e, Revealed))
    assert revealed.guesses == (Guess(1, 2, 2, 2), Guess(2, 2, 1, 1))
    assert state.tokens == (12, 12, 11) and state.bank == 30 - 2 - 1 - 2


def test_a_wrong_guess_loses_its_stake_to_the_bank() -> None:
    """ "Mängija A panustas 1 žetooni ega arvanud vastust ära. Ta paneb mängitud panuse
    žetoonialusele." (Player A bet 1 token and did not guess the answer. They put the stake
    on the tray.)"""
    state, _ = play(game(3), (0, Action(1)), (1, Action(3, 1)), (2, Action(2, 2)))
    assert state.tokens == (10, 9, 8) and state.bank == 33


def test_the_active_player_takes_one_token_per_right_guess() -> None:
    """ "Kaks mängijat arvasid sinu vastuse ära. Võta endale aluselt 2 žetooni." (Two players
    guessed your answer. Take 2 tokens from the tray.)"""
    state, events = play(game(3), (0, Action(3)), (1, Action(3, 1)), (2, Action(3, 1)))
    revealed = next(e for e in events if isinstance(e, Revealed))
    assert revealed.gained == 2 and state.tokens[0] == 12


def test_picks_may_be_changed_until_everyone_has_locked_in() -> None:
    """Ruling: all guess at once, in any order, changeable until everyone has locked in."""
    state, _ = play(game(3), (1, Action(1)), (1, Action(0, 2)), (1, Action(3)), (0, Action(2)))
    assert state.turn == 1 and GAME.to_move(state) == (2,)
    state, _ = play(state, (0, Action(3)), (2, Action(2, 1)))
    assert state.turn == 2 and state.history == ((0, state.history[0][1], 3),)
    assert state.tokens == (11, 12, 9)


def test_a_broke_player_cannot_guess_and_is_back_after_their_own_turn() -> None:
    """ "Kui mängija kaotab kõik oma panusežetoonid, ei saa ta teiste mängijate vastustele enam
    panustada. Ta peab ootama, kuni on tema kord küsimusele vastata, ja lootma, et ta võidab
    mõne žetooni" (A player who loses all their bet tokens can no longer bet on the others'
    answers. They must wait for their turn to answer and hope to win some tokens.)"""
    state = game(3)._replace(tokens=(10, 1, 10))
    state, _ = play(state, (0, Action(1)), (1, Action(2, 1)), (2, Action(1, 1)))
    assert state.tokens[1] == 0 and state.active == 1
    assert (
        1 not in state.guessers
        and legal_actions(game(3)._replace(tokens=(10, 0, 10), guessers=(2,)), 1) == []
    )
    state, _ = play(state, (1, Action(2)), (2, Action(2, 1)), (0, Action(2, 1)))
    assert state.tokens[1] == 2 and 1 in state.guessers
    with pytest.raises(IllegalAction) as refused:
        apply(game(3)._replace(tokens=(10, 0, 10), guessers=(2,)), 1, Action(1, 1))
    assert refused.value.code == "broke"


def test_a_turn_nobody_can_guess_is_still_played() -> None:
    """Ruling: a turn in which nobody can guess is still played (the active player answers;
    nothing moves)."""
    state, events = new_game(2, {}, 1)
    state = state._replace(tokens=(10, 0), guessers=())
    state, events = play(state, (0, Action(2)))
    assert any(isinstance(e, Revealed) and e.guesses == () for e in events)
    assert state.tokens == (10, 0) and state.active == 1


def test_refusing_costs_the_refuser_two_tokens_paid_into_the_bank() -> None:
    """ "Mängija saab ka küsimusele vastamisest keelduda, andes žetoonialuselt ära 2
    panusežetooni." (A player may refuse to answer, giving away 2 bet tokens from the tray.)
    Ruling: refusing costs the refuser 2 of their own tokens, paid into the bank (all they
    have if fewer); guesses already made are withdrawn; the next player takes a turn."""
    state, events = play(game(3), (1, Action(2, 2)), (0, REFUSE))
    assert state.tokens == (8, 10, 10) and state.bank == 32 and state.active == 1
    refused = next(e for e in events if isinstance(e, Refused))
    assert (refused.paid, refused.from_bank, refused.withdrawn) == (2, False, 1)
    poor, _ = play(game(3)._replace(tokens=(1, 10, 10)), (0, REFUSE))
    assert poor.tokens[0] == 0 and poor.bank == 31
    broke, _ = play(game(3)._replace(tokens=(0, 10, 10)), (0, REFUSE))
    assert broke.tokens == (0, 10, 10) and broke.bank == 30


def test_with_the_option_a_refusal_takes_two_tokens_out_of_the_bank() -> None:
    """Ruling: lobby option "refusal takes 2 from the bank" (the literal reading: 2 tokens
    leave the bank and the game, all that is left if fewer)."""
    state, _ = play(game(3, from_bank=True), (0, REFUSE))
    assert state.tokens == (10, 10, 10) and state.bank == 28 and state.removed == 2
    last, _ = play(game(3, from_bank=True)._replace(bank=1), (0, REFUSE))
    assert last.bank == 0 and last.removed == 1 and last.over and last.reason == BANK_EMPTY


def test_only_the_active_player_may_refuse() -> None:
    """Ruling: only the active player may refuse."""
    with pytest.raises(IllegalAction) as refused:
        apply(game(3), 1, REFUSE)
    assert refused.value.code == "refuse_not_yours"


def test_the_game_ends_when_the_bank_is_empty() -> None:
    """ "Mäng on läbi, kui žetoonialus on tühi." (The game is over when the tray is empty.)"""
    state = game(3)._replace(bank=4)  # two right guesses at 1: 2 back + 2 to the active
    state, events = play(state, (0, Action(1)), (1, Action(1, 1)), (2, Action(1, 1)))
    assert state.bank == 0 and state.over and state.reason == BANK_EMPTY
    assert isinstance(events[-1], GameEnded) and events[-1].reason == BANK_EMPTY


def test_a_bank_that_cannot_pay_every_winner_voids_the_turn_and_ends_the_game() -> None:
    """ "Kui alusel ei ole kõigi ringi võitjate jaoks piisavalt žetoone, ei võida ega kaota
    keegi ja mäng on läbi." (If the tray has not enough tokens for all the round's winners,
    nobody wins or loses and the game is over.) Ruling: lost stakes go to the bank first."""
    state = game(4)._replace(bank=3)
    # losses first: 3 + 1 lost = 4; owed 2 + 1 (stake and the active's token) = 3: paid.
    paid, _ = play(state, (0, Action(1)), (1, Action(1, 2)), (2, Action(2, 1)), (3, Action(3, 0)))
    paid, _ = play(paid, (3, Action(0, 2)))
    assert not paid.over and paid.tokens == (11, 12, 9, 8) and paid.bank == 3 + 1 + 2 - 3
    # two winners at 2 each: owed 2 + 2 + 2 = 6 > 3 + 1: void.
    void, events = play(state, (0, Action(1)), (1, Action(1, 2)), (2, Action(1, 2)))
    void, events = play(void, (3, Action(2, 1)))
    revealed = next(e for e in events if isinstance(e, Revealed))
    assert revealed.void and all(g.payout == 0 for g in revealed.guesses)
    assert void.tokens == (10, 10, 10, 10) and void.bank == 3
    assert void.over and void.reason == BANK_SHORT


def test_most_tokens_wins_and_equal_tokens_share_a_place() -> None:
    """ "Võidab mängija, kellel on enim panusežetoone." (The player with the most bet tokens
    wins.) Ruling: equal tokens share a place (1, 1, 3)."""
    state = game(3)._replace(tokens=(5, 9, 9))
    assert GAME.result(state) == (Placing(1, 1, 9), Placing(2, 1, 9), Placing(0, 3, 5))


def test_the_game_ends_when_every_player_is_broke() -> None:
    """Ruling against a stall: the game also ends when every player is broke."""
    state = game(2)._replace(tokens=(0, 1))
    state, _ = play(state, (0, Action(1)), (1, Action(2, 1)))
    assert state.over and state.reason == ALL_BROKE


def test_a_full_round_with_no_token_moving_ends_the_game() -> None:
    """Ruling against a stall: the game ends after a full round of turns in which no token
    moved."""
    state = game(3)
    for active in range(3):
        assert not state.over
        state, _ = play(state, (active, Action(1)))
        for p in GAME.to_move(state):
            state, _ = timeout(state, p)
    assert state.over and state.reason == STALLED


def test_a_guesser_who_does_not_pick_is_skipped() -> None:
    """Issue: a player who does not pick is skipped for that turn (no stake, no loss)."""
    state, _ = play(game(3), (0, Action(1)), (1, Action(2)), (2, Action(1, 2)))
    state, events = timeout(state, 1)
    assert events[0] == Skipped(1)
    revealed = next(e for e in events if isinstance(e, Revealed))
    assert [g.player for g in revealed.guesses] == [2] and state.tokens == (11, 10, 12)


def test_an_idle_active_player_refuses_at_a_refusals_cost() -> None:
    """Ruling "An idle active player": "Letting one's time run out must not be cheaper than
    refusing: when the active player does not answer in time, the turn counts as their
    refusal, with its cost under the table's option." Guesses are withdrawn as in a refusal."""
    start, _ = play(game(3), (1, Action(2, 2)), (2, Action(1, 1)))
    idle, events = timeout(start, 0)
    refused, _ = apply(start, 0, REFUSE)
    assert idle == refused and idle.tokens == (8, 10, 10) and idle.bank == 32
    assert events[0] == Refused(0, start.card, 2, False, 2, 32, (8, 10, 10), True)
    assert idle.active == 1 and idle.quiet == 0, "a token moved: the turn was not quiet"
    bank, _ = play(game(3, from_bank=True), (1, Action(2, 2)))
    idle, events = timeout(bank, 0)
    assert idle == apply(bank, 0, REFUSE)[0] and idle.bank == 28 and idle.removed == 2
    assert isinstance(events[0], Refused) and events[0].from_bank and events[0].timed_out


def test_an_answer_may_be_changed_into_a_refusal_until_the_reveal() -> None:
    """Ruling "Changing a pick": "a pick (an answer, a guess, a stake) may be changed until
    everyone has locked in, and an answer may be changed into a refusal; a refusal ends the
    turn at once." """
    state, _ = play(game(3), (0, Action(1)), (1, Action(2, 2)), (0, Action(3)))
    assert state.turn == 1 and state.answer == 3 and GAME.to_move(state) == (2,)
    assert REFUSE in legal_actions(state, 0), "the answer can still become a refusal"
    state, events = apply(state, 0, REFUSE)
    assert not any(isinstance(e, Revealed) for e in events), "ended at once, nothing revealed"
    assert state.turn == 2 and state.active == 1 and state.tokens == (8, 10, 10)
    revealed, _ = play(game(3), (1, Action(2, 2)), (2, Action(1, 1)), (0, Action(2)))
    with pytest.raises(IllegalAction):  # everyone locked in: revealed, the next turn is on
        apply(revealed, 0, REFUSE)
