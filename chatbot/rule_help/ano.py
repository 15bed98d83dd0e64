"""Ano's rule help: the Thai rulebook's sections (seed 004; the Thai catalogue holds its own
sentences), every table option, and the bot's rulings, marked as the bot's (docs/rulings.md)."""

from __future__ import annotations

from dataclasses import replace

from chatbot.i18n import N_
from chatbot.rule_help import GlossaryEntry, RuleBook, Section

RULING_NOTES = {
    "components": N_(
        "House ruling (this bot): two players play Ano here; Crazy Eights is not offered. The "
        "rulebook only names it and gives none of its rules, so the bot would have to invent "
        "them, and it plays only what a rulebook or a ruling says. With two, an A changes "
        "nothing and a J comes back to you (see Special cards)."
    ),
    "setup": N_(
        "House ruling (this bot): the player who opened the table starts, then join order. A joker "
        "turned up goes back to the bottom of the pile; an A, J, Q or K turned up has no "
        "effect."
    ),
    "specials": N_(
        "House ruling (this bot): several As, Js, Qs, Ks or jokers played together each count (two "
        "Qs: 4 cards; two jokers: 8, the last names the suit). Js count players round the "
        "circle and may come back to you. A named suit holds until the next card. With two "
        "players an A changes nothing (it is not a skip), and a J comes back to you."
    ),
    "chains": N_(
        "House ruling (this bot): the draw falls only on a player unable to play, so a fitting "
        "number card ends a chain and nobody draws. A and J add nothing: A sends it back, J skips "
        "on. With two players a J sends the draw back to you: answer it or draw it."
    ),
    "ano": N_(
        "House ruling (this bot): you may call until the next player plays or draws; from then "
        "until your own next action anyone still playing may press “Caught!”, and the first press "
        "counts. A late call does not protect you. “Caught!” is offered only against a hand that "
        "could win at once. If a draw or a penalty (a catch too) leaves you cards that could all "
        "go down at once, you owe the call again; a draw that finds no card changes nothing, so "
        "a call you made still holds, and a call you forgot can still be caught."
    ),
    "end": N_(
        "House ruling (this bot): if nobody can play and no card is left to draw for a whole "
        "round, the game ends and the players left rank by fewest cards (in points mode by "
        "fewest points). If fewer cards are left than you must draw, you draw what there is."
    ),
}

SECTIONS = (
    Section(
        "components",
        # the Thai rulebook's headings: อุปกรณ์, วิธีการเล่น
        N_("Equipment"),
        N_(
            "One 52-card deck, with or without jokers (two decks together are more fun). "
            "From 2 players, best with 3–5, no more than 10. If you really must play with two, "
            "the rulebook suggests Crazy Eights, the card game Ano comes from: it plays much "
            "the same but is more fun for two."
        ),
    ),
    Section(
        "setup",
        N_("How to play"),
        N_(
            "Shuffle and deal five cards to each player, one at a time; the rest is the draw "
            "pile. Turn its top card face up in the middle."
        ),
    ),
    Section(
        "turn",
        N_("A turn"),
        N_(
            "Play a card of the same number or the same suit as the top card of the middle "
            "pile (a joker goes on anything). If you cannot play, draw one card from the pile. "
            "Cards of the same number may go down together if one of them can be played; that "
            "one goes at the bottom."
        ),
    ),
    Section(
        "specials",
        N_("Special cards"),
        N_(
            "Joker: goes on any card; its player names the suit the next player must play, and "
            "the next player, if unable, draws four.\n"
            "A: reverses the order of play; the previous player becomes the next.\n"
            "J: skips the next player; several together skip that many.\n"
            "Q: the next player, if unable to play, draws two.\n"
            "K: the next player, if unable to play, draws three (Uno rules: four)."
        ),
    ),
    Section(
        "chains",
        N_("Chains"),
        N_(
            "If the next player plays A, J, Q or K, the effects add up. Example: the first "
            "plays K, the second Q, the third A, back to the second, who plays a joker naming "
            "clubs; the first cannot play and draws it all: 3 + 2 + 4 = 9 cards."
        ),
    ),
    Section(
        "ano",
        N_("Calling Ano"),
        N_(
            "Whenever you have one card left, or cards that win in one play, you must say "
            "“Ano” (press Ano!). Caught having forgotten, once the next player has started, "
            "you draw five more cards (Uno rules: two)."
        ),
    ),
    Section(
        "end",
        N_("The end"),
        N_(
            "The first player to empty their hand wins; play on until one loser is left. When "
            "the draw pile runs out, the middle pile is shuffled into a new one; its top card "
            "stays."
        ),
    ),
    Section(
        "options",
        N_("Options"),
        N_(
            "Two decks. Jokers. Uno rules: K draws four, forgetting Ano costs two.\n"
            "Jump-in (two decks): a card identical to the last one, number and suit, may be "
            "played at once out of turn; the next turn starts after the jumper.\n"
            "Fumble: a wrong play, such as a wrong card or a wrong jump-in, draws two more.\n"
            "No special card last: special cards may not be the last card that ends the game.\n"
            "Points: joker and K 50, A, J, Q 20, numbers their value; the first empty hand wins "
            "and ends the game, the others rank by fewest points.\n"
            "Play the drawn card (this bot's option, not in the rulebook): a drawn card that "
            "fits may be played at once."
        ),
        N_(
            "House ruling (this bot): jump-in is offered only with two decks; one card at a "
            "time, never a joker, never by the player whose turn it is. With fumble, the whole "
            "hand is offered; a wrong play is one card, which stays in your hand, and your turn "
            "goes on; a false “Caught!” also costs two, and catching a player who did call "
            "counts as false. "
            "With “Play the drawn card”, only the drawn card may still be played. In points "
            "mode equal points share a place."
        ),
    ),
)

GLOSSARY = (
    GlossaryEntry(
        "turn",
        N_("A turn"),
        N_(
            "Play a card of the top card's number or suit; if you cannot, draw one card and your "
            "turn ends."
        ),
        "turn",
        # TRANSLATORS: the names players type for a card game's turn: Thai ตา, Japanese 手番
        N_("turn, your turn, go"),
    ),
    GlossaryEntry(
        "playing_cards",
        N_("Playing cards"),
        N_(
            "An ordinary deck of 52 playing cards, with or without jokers; two decks together "
            "are more fun."
        ),
        "components",
        N_("playing card, decks, two decks, 52 cards"),
    ),
    GlossaryEntry(
        "draw_pile",
        N_("Draw pile"),
        N_(
            "The face-down pile you draw from when you cannot play. When it runs out, the "
            "discard pile but its top card is shuffled into a new one."
        ),
        "turn",
        N_("stock, pile, draw"),
    ),
    GlossaryEntry(
        "discard_pile",
        N_("Discard pile"),
        N_("The face-up pile in the middle: play onto its top card, by number or by suit."),
        "turn",
        N_("middle pile, discards, top card"),
    ),
    GlossaryEntry(
        "joker",
        N_("Joker"),
        N_("Goes on anything; names a suit; the next player, if unable to play, draws four."),
        "specials",
        N_("joker card, wild card"),
    ),
    GlossaryEntry(
        "reverse",
        N_("Reverse"),
        N_("An A reverses the order of play."),
        "specials",
        N_("ace, A"),
    ),
    GlossaryEntry(
        "skip",
        N_("Skip"),
        N_("A J skips the next player; several Js skip that many."),
        "specials",
        N_("jack, J"),
    ),
    GlossaryEntry(
        "chain",
        N_("Chain"),
        N_("Answering a pending draw with A, J, Q, K or a joker adds it up for the next player."),
        "chains",
        N_("stack, draw two, draw three, draw four, Q, K"),
    ),
    GlossaryEntry(
        "call_ano",
        N_("Ano!"),
        N_("Say it when one card is left, or cards that win in one play; forgetting costs five."),
        "ano",
        N_("uno, caught, call"),
    ),
    GlossaryEntry(
        "jump_in",
        N_("Jump-in"),
        N_("With two decks: play a card identical to the top card out of turn."),
        "options",
        N_("cut in, interrupt"),
    ),
    GlossaryEntry(
        "fumble",
        N_("Fumble"),
        N_("A wrong play draws two more cards."),
        "options",
        N_("wrong play, penalty"),
    ),
    GlossaryEntry(
        "points",
        N_("Points"),
        N_("Joker and K 50, A, J, Q 20, numbers their value; fewest points rank best."),
        "options",
        N_("score, scoring"),
    ),
)

ANO_RULES = RuleBook(
    "ano",
    tuple(replace(s, ruling=s.ruling or RULING_NOTES.get(s.key, "")) for s in SECTIONS),
    GLOSSARY,
)
