"""EGO's rule help: the rulebook's sections and glossary, and the bot's house rulings.

The English msgids translate the Estonian rulebook (seed 002) with its own examples; the Thai
and Japanese catalogues translate the same text. The rulings are this project's (docs/rulings.md,
"EGO") and say so.
"""

from __future__ import annotations

from dataclasses import replace

from chatbot.i18n import N_
from chatbot.rule_help import GlossaryEntry, RuleBook, Section

# The house rulings a player looks for in a given section (docs/rulings.md, "EGO").
RULING_NOTES = {
    "components": N_(
        "House ruling (this bot): the bot has its own deck of question cards, each with a "
        "question and 3 answers."
    ),
    "turn": N_(
        "House ruling (this bot): the player who opened the table answers first, then the "
        "others in the order they joined. The bot draws a random card, never repeated until "
        "every card has been used. Press 1, 2 or 3 on the table: nobody else sees your answer."
    ),
    "guessing": N_(
        "House ruling (this bot): everyone picks at the same time on the group's table: press "
        "1, 2 or 3 and then bet 1 or 2, or both in one press (“2 · bet 2”). You may change "
        "your pick until everyone has locked in. You never bet more tokens than you have. A "
        "player who does not pick in time is skipped for that turn: no bet, no loss."
    ),
    "payouts": N_(
        "House ruling (this bot): lost bets go to the tray first, then the winners are paid."
    ),
    "broke": N_(
        "House ruling (this bot): a turn in which nobody can guess is still played: the "
        "answer is revealed and no token moves."
    ),
    "refusing": N_(
        "House ruling (this bot): only the player whose turn it is may refuse. Refusing costs "
        "you 2 of your own bet tokens, paid into the tray (all you have if fewer; with none, "
        "refusing is free). With the table option “Refusal takes 2 from the tray”, 2 tokens "
        "leave the tray and the game instead. A refusal cancels the turn: guesses already "
        "made are withdrawn, nothing is lost or paid, and the next player answers. Until "
        "everyone has locked in you may change your answer into a refusal. A player who does "
        "not answer in time has refused, and pays what a refusal costs."
    ),
    "end": N_(
        "House ruling (this bot): lost bets go to the tray first; then, if the tray cannot pay "
        "every winner (the answering player too), the turn is void and the game is over. The "
        "game also ends when every player is out of tokens, or after a whole round of turns "
        "in which no token moved. Equal tokens share a place."
    ),
}

SECTIONS = (
    Section(
        "components",
        N_("Components"),
        N_(
            "2–6 players | 14+ | 20–60 minutes\n"
            "\n"
            "220 double-sided question cards, 18 large black answer tokens, 120 small red bet "
            "tokens and one round token tray."
        ),
    ),
    Section(
        "setup",
        N_("Setup"),
        N_(
            "Put the tray in the middle of the table. Each player takes a set of three black "
            "answer tokens, with 1, 2 and 3 red dots. Each player also takes 10 red bet "
            "tokens. Finally put 10 red bet tokens per player on the tray. Put the other "
            "tokens back in the bag.\n"
            "\n"
            "Example: with three players the tray holds 30 bet tokens at the start of the "
            "game, with five players 50 tokens, and so on."
        ),
    ),
    Section(
        "turn",
        N_("How to play"),
        N_(
            "EGO is a game for 2–6 players that takes 20–60 minutes, depending on how well the "
            "players know each other. The oldest player starts. Take any card and read aloud "
            "both the question and the answers. Put the card in the middle of the table so "
            "everyone can see it. Think about the question and its three answers. Choose in "
            "your mind the answer you agree with most. Do not reveal your choice to the other "
            "players. Next to each answer the card shows red dots. Choose as your answer the "
            "token with the same number of dots and put it face down on the table.\n"
            "\n"
            "Example: you chose answer number 3. Put the answer token with three red dots face "
            "down on the table in front of you."
        ),
    ),
    Section(
        "guessing",
        N_("Guessing and betting"),
        N_(
            "The other players must now guess on their own which answer you chose. Each of "
            "them puts face down on the table the token with the red dots of the answer they "
            "think you chose.\n"
            "\n"
            "Example: player A thinks you chose answer number 2. They put their answer token "
            "with two red dots face down on the table.\n"
            "\n"
            "Now each player chooses whether to bet one or two bet tokens.\n"
            "\n"
            "Example: player A is sure they guessed your answer and chooses 2 bet tokens, "
            "putting them next to their answer token. When all players have placed their "
            "bets, all answer tokens are turned over. The players who chose the same answer "
            "as you guessed right."
        ),
    ),
    Section(
        "payouts",
        N_("Sharing out the bet tokens"),
        N_(
            "A player who guesses your answer gets back double their bet.\n"
            "Example: a player bet 2 tokens and guessed your answer. They get back their 2 "
            "tokens + 2 more tokens from the tray.\n"
            "\n"
            "A player who did not guess your answer loses their bet this round.\n"
            "Example: player A bet 1 token and did not guess the answer. They put the bet on "
            "the tray.\n"
            "\n"
            "For each right answer you take one bet token from the tray.\n"
            "Example: two players guessed your answer. Take 2 tokens from the tray."
        ),
    ),
    Section(
        "broke",
        N_("Out of tokens"),
        N_(
            "Note: a player who loses all their bet tokens can no longer bet on the other "
            "players' answers. They must wait until it is their turn to answer the question, "
            "and hope to win some tokens to come back into the game."
        ),
    ),
    Section(
        "refusing",
        N_("Refusing to answer"),
        N_(
            "A player may also refuse to answer the question, giving away 2 bet tokens from "
            "the tray."
        ),
    ),
    Section(
        "end",
        N_("And the winner is…"),
        N_(
            "The game is over when the tray is empty. The player with the most bet tokens "
            "wins.\n"
            "\n"
            "Note: if the tray does not have enough tokens for all the winners of the round, "
            "nobody wins or loses and the game is over."
        ),
    ),
)

GLOSSARY = (
    GlossaryEntry(
        "turn",
        N_("Turn"),
        N_(
            "The player whose turn it is secretly picks an answer; the others guess it and bet. "
            "Then the next player answers."
        ),
        "turn",
        # TRANSLATORS: the names players type for a card game's turn: Thai ตา, Japanese 手番
        N_("turn, your turn, go"),
    ),
    GlossaryEntry(
        "tray",
        N_("Token tray"),
        N_(
            "The tray in the middle: 10 bet tokens per player at the start. Lost bets go in, "
            "winnings come out. The game ends when it is empty."
        ),
        "setup",
        N_("tray, bank, token tray"),
    ),
    GlossaryEntry(
        "answer_tokens",
        N_("Answer tokens"),
        N_(
            "Each player has three, with 1, 2 and 3 red dots: one for each answer on a card. "
            "Here you press 1, 2 or 3 instead."
        ),
        "turn",
        N_("answer tokens, answer token, answer, dots"),
    ),
    GlossaryEntry(
        "bet_tokens",
        N_("Bet tokens"),
        N_(
            "Each player starts with 10. You bet 1 or 2 on your guess; the player with the "
            "most at the end wins."
        ),
        "guessing",
        N_("bet tokens, bet token, tokens, token, bet, stake"),
    ),
    GlossaryEntry(
        "question_cards",
        N_("Question cards"),
        N_(
            "A question about the answering player, with three answers marked with 1, 2 and 3 dots."
        ),
        "turn",
        N_("question cards, question card, card, cards, question"),
    ),
    GlossaryEntry(
        "refuse",
        N_("Refusing"),
        N_(
            "Instead of answering, the player whose turn it is may refuse. It costs 2 bet "
            "tokens; the turn is cancelled."
        ),
        "refusing",
        N_("refuse, refusal, skip, pass"),
    ),
    GlossaryEntry(
        "winning",
        N_("Winning"),
        N_("When the tray is empty the game ends; the player with the most bet tokens wins."),
        "end",
        N_("winning, winner, end, game end"),
    ),
)

EGO_RULES = RuleBook(
    "ego",
    tuple(replace(s, ruling=RULING_NOTES.get(s.key, "")) for s in SECTIONS),
    GLOSSARY,
)
