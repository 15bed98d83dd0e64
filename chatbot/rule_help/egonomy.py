"""Egonomy's rule help: the rulebook's sections and glossary, and the bot's house rulings.

The English msgids translate the Thai and Japanese rulebooks (seeds 000 and 001); the Thai
and Japanese catalogues hold the rulebooks' own sentences, with the words lost with the icons
restored. The "rulings" section is this project's (docs/rulings.md) and says so.
"""

from __future__ import annotations

from dataclasses import replace

from chatbot.i18n import N_
from chatbot.rule_help import GlossaryEntry, RuleBook, Section

# The rulebook shows the three topics only as icons; the names are a ruling (docs/rulings.md,
# "Egonomy: topics and flip sides"), in the order of engine.egonomy.cards (topics A, B, C).
TOPIC_NAMES: tuple[str, str, str] = (N_("Ethics"), N_("Logic"), N_("Metaphysics"))
TOPIC_EMOJI = ("⚖️", "🧩", "🌌")

# The house rulings a player looks for in a given section (docs/rulings.md); all of them are also
# listed together in the "rulings" section.
RULING_NOTES = {
    "components": N_(
        "House ruling (this bot): the rulebook does not list the cards. This bot uses 27 "
        "unmarked cards (1–9 once in each topic), 6 with the 3-player mark (a second 3 and 7 "
        "in each topic) and 7 with the 4-player mark (a second 2, 5 and 8 in Ethics and Logic, "
        "a second 5 in Metaphysics)."
    ),
    "setup": N_(
        "House ruling (this bot): in round 1 the bot finds the humblest player at random; "
        "after that, the last placed player of a round starts the next one. With this bot's "
        "cards everyone gets 13 cards with 2 players, 11 with 3 players and 10 with 4 players."
    ),
    "argue": N_(
        "House ruling (this bot): at least one card of the sequence must have the table's "
        "topic; you gain momentum only if every card has it. With the table option "
        "“strict topics” every card must have it."
    ),
    "winning": N_(
        "House ruling (this bot): the winning sequence stays on the table, and the cards it "
        "beat go to your ✦. With the same number of cards and the same highest number, your "
        "sequence loses. You may beat your own sequence."
    ),
    "momentum": N_(
        "House ruling (this bot): an argue gains momentum only if every card of the sequence "
        "has the table's topic."
    ),
    "flip": N_(
        "House ruling (this bot): the back of the Ethics table shows Logic, the back of Logic "
        "shows Metaphysics, and the back of Metaphysics shows Ethics. Flipping a flipped table "
        "turns it back."
    ),
    "round_end": N_(
        "House ruling (this bot): in every mode, the round also ends when the player who must "
        "act (after gaining momentum too) cannot take any action."
    ),
    "general": N_(
        "House ruling (this bot): the cards taken into ✦ piles this round lay face up on the "
        "tables first, so anyone may remember them, the computer players too; the chat never "
        "shows the faces in a pile."
    ),
}

SECTIONS = (
    Section(
        "components",
        N_("Components"),
        N_(
            "2–4 players | 30 minutes\n"
            "\n"
            "Argument cards ×40\n"
            "The cards you play. Each has a topic and a number from 1 to 9; "
            "some carry a player-count mark.\n"
            "\n"
            "Topic tables ×3\n"
            "One per topic, placed in the middle for cards to be played on. "
            "Each has a white icon side and a flip side.\n"
            "\n"
            "Trophies ×9\n"
            "Player aid cards ×4\n"
            "First-player card ×1"
        ),
    ),
    Section(
        "setup",
        N_("Setup"),
        N_(
            "1. Whoever in the circle has the least ego takes the first-player card.\n"
            "2. Place the 3 topic tables in the middle, white icon side up.\n"
            "3. Return to the box the argument cards with the player-count marks below.\n"
            "2 players ➔ return the cards with the 3-player and 4-player marks\n"
            "3 players ➔ return the cards with the 4-player mark\n"
            "4 players ➔ return nothing\n"
            "4. Shuffle the argument cards and deal them all out evenly: "
            "they are everyone's hand.\n"
            "2 players ➔ before dealing, discard one card at random, face down\n"
            "3–4 players ➔ discard nothing"
        ),
    ),
    Section(
        "goal",
        N_("Goal"),
        N_(
            "At a symposium of philosophers locked in debate, you wait for your moment to show "
            "off your learning and fill your ego to the brim before going home.\n"
            "\n"
            "Collect as much ✦ (ego) as you can, and keep as few cards in your hand as you can."
        ),
    ),
    Section(
        "turn",
        N_("Your turn"),
        N_(
            "The player holding the first-player card starts; play goes on clockwise. "
            "On your turn you must take one of the five actions (six in flip-table mode). "
            "You may not pass.\n"
            "1 Babble\n"
            "2 Cut off\n"
            "3 Argue\n"
            "4 Listen\n"
            "5 Let go\n"
            "6 Flip the table"
        ),
    ),
    Section(
        "babble",
        N_("Babble"),
        N_(
            "Play one card onto an empty topic table that matches the card's topic.\n"
            "You may not babble onto a table holding a single card, even with a higher number."
        ),
    ),
    Section(
        "cut_off",
        N_("Cut off"),
        N_("Take the card from a topic table holding exactly one card and keep it as ✦."),
    ),
    Section(
        "argue",
        N_("Argue"),
        N_(
            "Play a sequence of two or three cards onto a topic table. It must match the "
            "table's topic and win the argument on that table.\n"
            "\n"
            "How this bot reads “match the topic”: see the house rulings."
        ),
    ),
    Section(
        "sequence",
        N_("Sequence"),
        N_(
            "A sequence is two or three cards with consecutive numbers.\n"
            "✓ 12, 123\n"
            "✗ 11, 111, 122, 912"
        ),
    ),
    Section(
        "winning",
        N_("Winning an argument"),
        N_(
            "More cards win. With the same number of cards, the higher sequence wins, "
            "and 123 also beats 789 (fallacy).\n"
            "An empty table: always won.\n"
            "Single cards never beat each other (babble).\n"
            "You collect the cards you beat: 1 ✦ for each."
        ),
    ),
    Section(
        "fallacy",
        N_("Fallacy"),
        N_("The sequence 123. In addition to the normal rules, it also beats 789."),
    ),
    Section(
        "listen",
        N_("Listen"),
        N_(
            "Take one card from a topic table holding two or more cards into your hand, "
            "and discard the rest face up.\n"
            "3–4 players only. Gain momentum."
        ),
    ),
    Section(
        "let_go",
        N_("Let go"),
        N_(
            "Discard two or more cards of the same number from your hand "
            "onto the discard pile, face up.\n"
            "For example, discard 111. The cards' topics do not matter, "
            "but you cannot discard 11 and 22 in one go."
        ),
    ),
    Section(
        "momentum",
        N_("Momentum"),
        N_(
            "When you gain momentum, you must take one more action at once; "
            "it may be the same action again.\n"
            "You gain momentum only once a turn, even if you meet a condition again.\n"
            "There are three ways to gain momentum: argue with every card of the table's topic "
            "(this bot's reading), listen, and flip the table."
        ),
    ),
    Section(
        "example",
        N_("Example turn"),
        N_(
            "Action 1 of 2: same topic, play 12, gain momentum.\n"
            "Action 2 of 2: use the momentum, play 234, collect 12: 234 beats 12, +2 ✦.\n"
            "\n"
            "Another: play 123, collect 45: 123 beats 45, +2 ✦."
        ),
    ),
    Section(
        "round_end",
        N_("End of the round"),
        N_(
            "The round ends at once when any player has no cards left in hand.\n"
            "After each round, the first-player card passes to the player in last place."
        ),
    ),
    Section(
        "scoring",
        N_("Scoring"),
        N_(
            "An argument left in your hand is a chance to show off that slipped away: "
            "lose 1 ✦ for each card left in your hand. Then compare the ✦ that remain.\n"
            "On a tie, the player with the smaller sum of numbers left in hand ranks higher. "
            "If still tied, the player farthest clockwise from the round's first player "
            "ranks higher.\n"
            "1st place in the round gets 2 trophies, 2nd place 1 trophy."
        ),
    ),
    Section(
        "game_end",
        N_("End of the game"),
        N_(
            "Play 3 rounds, or until a player has 4 trophies.\n"
            "The player with the most trophies wins. On a tie, "
            "the one who placed better in the last round wins."
        ),
    ),
    Section(
        "general",
        N_("General rules"),
        N_(
            "Other players may count your ✦ and the cards in your hand at any time, "
            "but may not look at their faces.\n"
            "Anyone may look at the face-up discard pile at any time."
        ),
    ),
    Section(
        "flip_mode",
        N_("Flip-table mode"),
        N_(
            "Losing the argument? Then flip the table and change the subject. Once you know "
            "the basic game well, try adding this action.\n"
            "An advanced variant that adds a sixth action: flip a topic table holding exactly "
            "three cards to change its topic.\n"
            "This mode also adds two rules to the end of the round, on top of the basic game's:\n"
            "• The round also ends when a player cannot take an action.\n"
            "• Flipped tables are turned back before the next round starts."
        ),
    ),
    Section(
        "flip",
        N_("Flip the table"),
        N_(
            "Flip a topic table holding exactly three cards, discard those cards, "
            "and gain momentum.\n"
            "Flipped over, the table changes its topic.\n"
            "In the same turn, you may play cards onto the table you have just flipped.\n"
            "Flip-table mode only."
        ),
    ),
    Section(
        "rulings",
        N_("House rulings"),
        N_(
            "House ruling (this bot): where the rulebook is silent or unclear, this bot plays "
            "as follows.\n"
            "• Topics: the rulebook shows them only as icons; here they are "
            "⚖️ Ethics, 🧩 Logic and 🌌 Metaphysics.\n"
            "• Cards (a guess; the rulebook does not list them): 27 unmarked cards, 1–9 once in "
            "each topic. 3-player mark: a second 3 and 7 in each topic. 4-player mark: a second "
            "2, 5 and 8 in Ethics and Logic, a second 5 in Metaphysics.\n"
            "• Flip sides (a guess): the back of the Ethics table shows Logic, the back of Logic "
            "shows Metaphysics, the back of Metaphysics shows Ethics.\n"
            "• Argue: at least one card must have the table's topic; you gain momentum only if "
            "every card has it. Table option “strict topics”: every card must have it.\n"
            "• Winning: the winning sequence stays on the table; the same number of cards with "
            "the same highest number loses; you may beat your own sequence.\n"
            "• A single card never beats a single card, whatever its number. "
            "789 played on a 123 still wins.\n"
            "• In every mode, the round ends when a player cannot take an action "
            "(after gaining momentum too).\n"
            "• Round 1: the bot has found the humblest player (at random) to start.\n"
            "• Between rounds every card is gathered, reshuffled and dealt again "
            "(2 players: a new face-down discard); trophies stay. Hands: 13 cards each with "
            "2 players, 11 with 3, 10 with 4.\n"
            "• Ties: in a round, the smaller sum left in hand, then the player farther clockwise "
            "from the first player; in the game, the better place in the last round."
        ),
    ),
)

GLOSSARY = (
    GlossaryEntry(
        "turn",
        N_("Your turn"),
        N_(
            "Take one of the five actions (six in flip-table mode); you may not pass. Play goes "
            "on clockwise."
        ),
        "turn",
        # TRANSLATORS: the names players type for Egonomy's turn: Thai เทิร์น, Japanese 手番
        N_("your turn, go"),
    ),
    GlossaryEntry(
        "flip_mode",
        N_("Flip-table mode"),
        N_(
            "An advanced variant that adds a sixth action: flip a topic table holding exactly "
            "three cards to change its topic."
        ),
        "flip_mode",
        # TRANSLATORS: words a player may type to find this term (/rule WORD), separated by
        # commas: the rulebook's term, its reading or common variants, and the English word.
        N_("flip-table mode, flip mode, table-flip mode"),
    ),
    GlossaryEntry(
        "winning",
        N_("Winning an argument"),
        N_(
            "More cards win. With the same number of cards, the higher sequence wins, "
            "and 123 also beats 789."
        ),
        "winning",
        N_("winning an argument, win, beat"),
    ),
    GlossaryEntry(
        "momentum",
        N_("Momentum"),
        N_(
            "When you gain momentum, you must take one more action at once. "
            "You gain momentum only once a turn."
        ),
        "momentum",
        N_("momentum, impetus"),
    ),
    GlossaryEntry(
        "argue",
        N_("Argue"),
        N_(
            "Play a sequence of two or three cards onto a topic table. It must match the "
            "table's topic and win the argument on that table."
        ),
        "argue",
        N_("argue, argument"),
    ),
    GlossaryEntry(
        "listen",
        N_("Listen"),
        N_(
            "Take one card from a topic table holding two or more cards into your hand, "
            "and discard the rest. 3–4 players only."
        ),
        "listen",
        N_("listen, hear out"),
    ),
    GlossaryEntry(
        "flip",
        N_("Flip the table"),
        N_(
            "Flip a topic table holding exactly three cards, discard those cards and gain "
            "momentum. Flip-table mode only."
        ),
        "flip",
        N_("flip the table, flip, table flip"),
    ),
    GlossaryEntry(
        "let_go",
        N_("Let go"),
        N_("Discard two or more cards of the same number from your hand, face up."),
        "let_go",
        N_("let go, let it go"),
    ),
    GlossaryEntry(
        "setup_4",
        N_("Setup, step 4"),
        N_("Shuffle the argument cards and deal them all out evenly."),
        "setup",
        N_("setup, deal, dealing, shuffle"),
    ),
    GlossaryEntry(
        "round_end_flip",
        N_("End of the round: flip-table mode"),
        N_(
            "The round also ends when a player cannot take an action, and flipped tables are "
            "turned back before the next round starts."
        ),
        "flip_mode",
        N_("flip-table round end, stuck, cannot act"),
    ),
    GlossaryEntry(
        "round_end",
        N_("End of the round"),
        N_(
            "The round ends when a player has no cards left in hand. Lose 1 ✦ for each card "
            "left, then the top two get trophies."
        ),
        "round_end",
        N_("round end, end of round"),
    ),
    GlossaryEntry(
        "argument_cards",
        N_("Argument cards ×40"),
        N_(
            "The cards you play. Each has a topic and a number from 1 to 9; "
            "some carry a player-count mark."
        ),
        "components",
        N_("argument cards, argument card, cards, card, deck, player-count mark"),
    ),
    GlossaryEntry(
        "topic_tables",
        N_("Topic tables ×3"),
        N_(
            "One per topic, placed in the middle for cards to be played on. "
            "Each has a white icon side and a flip side."
        ),
        "components",
        N_("topic tables, topic table, tables, table, topics, topic"),
    ),
    GlossaryEntry(
        "first_player_card",
        N_("First-player card ×1"),
        N_("Shows who goes first. After each round it passes to the player in last place."),
        "components",
        N_("first-player card, first player card, first player, start player"),
    ),
    GlossaryEntry(
        "trophies",
        N_("Trophies ×9"),
        N_(
            "1st place in a round gets 2 trophies, 2nd place 1 trophy. The player with the "
            "most trophies after the last round wins."
        ),
        "scoring",
        N_("trophies, trophy"),
    ),
    GlossaryEntry(
        "sequence",
        N_("Sequence"),
        N_(
            "Two or three cards with consecutive numbers, such as 12 or 123. 912 is not a sequence."
        ),
        "sequence",
        N_("sequence, run, straight"),
    ),
    GlossaryEntry(
        "ego",
        N_("Ego ✦"),
        N_(
            "Your score. Each card you collect is 1 ✦; each card left in your hand at the end "
            "of the round costs 1 ✦."
        ),
        "scoring",
        N_("ego, score, points"),
    ),
    GlossaryEntry(
        "fallacy",
        N_("Fallacy"),
        N_("The sequence 123. In addition to the normal rules, it also beats 789."),
        "fallacy",
        N_("fallacy, sophistry"),
    ),
    GlossaryEntry(
        "babble",
        N_("Babble"),
        N_("Play one card onto an empty topic table that matches the card's topic."),
        "babble",
        N_("babble, nonsense"),
    ),
    GlossaryEntry(
        "cut_off",
        N_("Cut off"),
        N_("Take the card from a topic table holding exactly one card and keep it as ✦."),
        "cut_off",
        N_("cut off, cut"),
    ),
)

EGONOMY_RULES = RuleBook(
    "egonomy",
    tuple(replace(s, ruling=RULING_NOTES.get(s.key, "")) for s in SECTIONS),
    GLOSSARY,
)
