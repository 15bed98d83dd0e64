"""Why the engine refused an action, in the rulebook's words, and where the rule stands."""

from __future__ import annotations

from chatbot.i18n import N_

# --- refusals ------------------------------------------------------------------------------

EXPLANATIONS: dict[str, tuple[str, str]] = {
    "babble_one_card": (N_("Babble plays exactly one card."), "babble"),
    "babble_on_single": (
        N_(
            "Single cards never beat each other: you cannot babble onto a table that holds "
            "one card, even a higher one."
        ),
        "babble",
    ),
    "babble_needs_empty_table": (
        N_("You may babble only onto an empty topic table."),
        "babble",
    ),
    "babble_topic": (
        N_("Babble onto the empty topic table that matches the card's topic."),
        "babble",
    ),
    "cut_off_needs_single": (
        N_("You may cut off only from a topic table holding exactly one card."),
        "cut_off",
    ),
    "not_a_sequence": (
        N_(
            "Argue with a sequence: two or three cards with consecutive numbers, such as 12 "
            "or 123 (not 11, 122 or 912)."
        ),
        "sequence",
    ),
    "argue_topic": (
        N_(
            "Your sequence must match the table's topic: at least one of its cards must have "
            "that topic."
        ),
        "argue",
    ),
    "argue_topic_strict": (
        N_("Strict topics: every card of your sequence must have the table's topic."),
        "rulings",
    ),
    "argue_fewer_cards": (
        N_("More cards win: your sequence has fewer cards than the table holds."),
        "winning",
    ),
    "argue_not_higher": (
        N_(
            "With the same number of cards, only the higher sequence wins (and 123 also "
            "beats 789): yours does not."
        ),
        "winning",
    ),
    "listen_needs_three_players": (N_("Listen is for 3–4 players only."), "listen"),
    "listen_needs_two_cards": (
        N_("You may listen only at a topic table holding two or more cards."),
        "listen",
    ),
    "listen_card_not_on_table": (
        N_("When you listen, take one of the cards lying on that table."),
        "listen",
    ),
    "let_go_needs_two": (
        N_("Let go discards two or more cards of the same number."),
        "let_go",
    ),
    "let_go_one_number": (
        N_("Let go discards cards of one number only: not 11 and 22 in one go."),
        "let_go",
    ),
    "flip_mode_off": (
        N_("Flipping the table is for flip-table mode only, and this game is not in it."),
        "flip_mode",
    ),
    "flip_needs_three": (
        N_("You may flip only a topic table holding exactly three cards."),
        "flip",
    ),
    "card_not_in_hand": (N_("That card is not in your hand."), "general"),
    "not_your_turn": (N_("It's not your turn."), "turn"),
    "game_over": (N_("The game is over."), "game_end"),
    "no_such_table": (N_("There is no such topic table: there are three."), "components"),
    "bad_action": (N_("That is not one of the actions of your turn."), "turn"),
    "player_count": (N_("Egonomy is for {min}–{max} players."), "components"),
    "unknown_option": (
        N_("Egonomy has no such option: only flip-table mode and strict topics."),
        "rulings",
    ),
    "bad_option": (N_("Egonomy's options are yes or no."), "rulings"),
    "option_needs": (N_("Egonomy's options can each be set on their own."), "rulings"),
}
UNKNOWN_REFUSAL = (N_("That is not allowed now."), "turn")
