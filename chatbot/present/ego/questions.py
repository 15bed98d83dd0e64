"""The texts of EGO's question cards, in the gettext domain `ego_questions`.

Every card has a question about the answering player and three answers, short enough for
buttons. The msgids are English; the card id is the msgctxt, so equal answers on different
cards are translated apart. `scripts/i18n` extracts the `Q_` marks (babel.ego_questions.cfg).
"""

from __future__ import annotations

from chatbot.i18n import Translator

DOMAIN = "ego_questions"


def Q_(card_id: str, text: str) -> str:
    """Mark a card's text for extraction with the card id as its context; returns the text."""
    return text


TEXTS: dict[str, tuple[str, str, str, str]] = {
    "q001": (
        Q_("q001", "Your go-to late-night snack?"),
        Q_("q001", "Instant noodles"),
        Q_("q001", "Something sweet"),
        Q_("q001", "Nothing, I go to sleep"),
    ),
    "q002": (
        Q_("q002", "Your alarm rings. What happens next?"),
        Q_("q002", "I get up at once"),
        Q_("q002", "Snooze, snooze, snooze"),
        Q_("q002", "I woke up before it"),
    ),
    "q003": (
        Q_("q003", "A free Sunday with no plans. You…?"),
        Q_("q003", "Stay home and rest"),
        Q_("q003", "Go out somewhere"),
        Q_("q003", "Catch up on chores"),
    ),
    "q004": (
        Q_("q004", "The best season of the year?"),
        Q_("q004", "The hot season"),
        Q_("q004", "The rainy season"),
        Q_("q004", "The cool season"),
    ),
    "q005": (
        Q_("q005", "On a trip, you'd rather…?"),
        Q_("q005", "Beach and sea"),
        Q_("q005", "Mountains and forest"),
        Q_("q005", "A big city"),
    ),
    "q006": (
        Q_("q006", "At a party, you're the one who…?"),
        Q_("q006", "Talks to everyone"),
        Q_("q006", "Sticks with friends"),
        Q_("q006", "Looks after the food"),
    ),
    "q007": (
        Q_("q007", "How do you like your food?"),
        Q_("q007", "Really spicy"),
        Q_("q007", "A little spicy"),
        Q_("q007", "Not spicy at all"),
    ),
    "q008": (
        Q_("q008", "Your phone battery at bedtime is usually…?"),
        Q_("q008", "Nearly empty"),
        Q_("q008", "About half"),
        Q_("q008", "Charged all day"),
    ),
    "q009": (
        Q_("q009", "Your room right now is…?"),
        Q_("q009", "Spotless"),
        Q_("q009", "Messy but organised"),
        Q_("q009", "Please don't look"),
    ),
    "q010": (
        Q_("q010", "You get a surprise bonus. You…?"),
        Q_("q010", "Save it all"),
        Q_("q010", "Treat myself"),
        Q_("q010", "Treat my friends"),
    ),
    "q011": (
        Q_("q011", "Your favourite kind of movie?"),
        Q_("q011", "Comedy"),
        Q_("q011", "Action"),
        Q_("q011", "Horror"),
    ),
    "q012": (
        Q_("q012", "If you could have one superpower?"),
        Q_("q012", "Flying"),
        Q_("q012", "Teleporting"),
        Q_("q012", "Reading minds"),
    ),
    "q013": (
        Q_("q013", "Your everyday shoes?"),
        Q_("q013", "Sneakers"),
        Q_("q013", "Sandals"),
        Q_("q013", "Smart shoes"),
    ),
    "q014": (
        Q_("q014", "The best way to eat an egg?"),
        Q_("q014", "Fried"),
        Q_("q014", "Boiled"),
        Q_("q014", "In an omelette"),
    ),
    "q015": (
        Q_("q015", "How do you reply to messages?"),
        Q_("q015", "Right away"),
        Q_("q015", "When I feel like it"),
        Q_("q015", "I read and forget"),
    ),
    "q016": (
        Q_("q016", "Your perfect rainy afternoon?"),
        Q_("q016", "A nap"),
        Q_("q016", "A series marathon"),
        Q_("q016", "Games"),
    ),
    "q017": (
        Q_("q017", "Cats or dogs?"),
        Q_("q017", "Cats"),
        Q_("q017", "Dogs"),
        Q_("q017", "Both!"),
    ),
    "q018": (
        Q_("q018", "How do you pack for a trip?"),
        Q_("q018", "The night before"),
        Q_("q018", "A week ahead"),
        Q_("q018", "Right before I leave"),
    ),
    "q019": (
        Q_("q019", "A friend is sad. You…?"),
        Q_("q019", "Listen for hours"),
        Q_("q019", "Make them laugh"),
        Q_("q019", "Take them out to eat"),
    ),
    "q020": (
        Q_("q020", "How many apps are open on your phone?"),
        Q_("q020", "Just one or two"),
        Q_("q020", "About ten"),
        Q_("q020", "I've lost count"),
    ),
    "q021": (
        Q_("q021", "What do you order at a new restaurant?"),
        Q_("q021", "My usual kind of dish"),
        Q_("q021", "Something new"),
        Q_("q021", "What the staff suggest"),
    ),
    "q022": (
        Q_("q022", "Your favourite place at home?"),
        Q_("q022", "My bed"),
        Q_("q022", "The sofa"),
        Q_("q022", "The kitchen"),
    ),
    "q023": (
        Q_("q023", "Shopping online, you…?"),
        Q_("q023", "Buy at once"),
        Q_("q023", "Leave it in the cart"),
        Q_("q023", "Compare for days"),
    ),
    "q024": (
        Q_("q024", "Music while you work or study?"),
        Q_("q024", "Always"),
        Q_("q024", "Only without words"),
        Q_("q024", "Silence, please"),
    ),
    "q025": (
        Q_("q025", "You could live in another era. Which?"),
        Q_("q025", "The past"),
        Q_("q025", "The far future"),
        Q_("q025", "Today is best"),
    ),
    "q026": (
        Q_("q026", "How long do you take to get ready to go out?"),
        Q_("q026", "Five minutes"),
        Q_("q026", "Half an hour"),
        Q_("q026", "An hour or more"),
    ),
    "q027": (
        Q_("q027", "The game you'd pick for game night?"),
        Q_("q027", "Cards"),
        Q_("q027", "Board games"),
        Q_("q027", "Video games"),
    ),
    "q028": (
        Q_("q028", "When do you do your best thinking?"),
        Q_("q028", "Early morning"),
        Q_("q028", "Late at night"),
        Q_("q028", "In the shower"),
    ),
    "q029": (
        Q_("q029", "Your favourite drink?"),
        Q_("q029", "Coffee"),
        Q_("q029", "Tea"),
        Q_("q029", "Fruit juice"),
    ),
    "q030": (
        Q_("q030", "Pineapple on pizza?"),
        Q_("q030", "Yes, love it"),
        Q_("q030", "No way"),
        Q_("q030", "I'll eat anything"),
    ),
    "q031": (
        Q_("q031", "The best part of a trip?"),
        Q_("q031", "The food"),
        Q_("q031", "The sights"),
        Q_("q031", "The shopping"),
    ),
    "q032": (
        Q_("q032", "In a group chat, you're the one who…?"),
        Q_("q032", "Sends stickers"),
        Q_("q032", "Writes long messages"),
        Q_("q032", "Just reads"),
    ),
    "q033": (
        Q_("q033", "A new app asks you to read the terms. You…?"),
        Q_("q033", "Read it all"),
        Q_("q033", "Skim the top"),
        Q_("q033", 'Tap "Accept" at once'),
    ),
    "q034": (
        Q_("q034", "Your ideal home?"),
        Q_("q034", "A flat in the city"),
        Q_("q034", "A house with a garden"),
        Q_("q034", "A cabin in nature"),
    ),
    "q035": (
        Q_("q035", "How do you watch a series?"),
        Q_("q035", "One episode a day"),
        Q_("q035", "All in one go"),
        Q_("q035", "I forget to finish it"),
    ),
    "q036": (
        Q_("q036", "You can talk to one kind of animal. Which?"),
        Q_("q036", "Cats"),
        Q_("q036", "Dogs"),
        Q_("q036", "Birds"),
    ),
    "q037": (
        Q_("q037", "When paying, you mostly use…?"),
        Q_("q037", "Cash"),
        Q_("q037", "Cards"),
        Q_("q037", "My phone"),
    ),
    "q038": (
        Q_("q038", "Your favourite colour to wear?"),
        Q_("q038", "Black or white"),
        Q_("q038", "Bright colours"),
        Q_("q038", "Soft pastels"),
    ),
    "q039": (
        Q_("q039", "Rice, noodles or bread?"),
        Q_("q039", "Rice"),
        Q_("q039", "Noodles"),
        Q_("q039", "Bread"),
    ),
    "q040": (
        Q_("q040", "How early do you get to the meeting point?"),
        Q_("q040", "Ten minutes early"),
        Q_("q040", "Right on time"),
        Q_("q040", "A little late"),
    ),
    "q041": (
        Q_("q041", "Your ideal way to exercise?"),
        Q_("q041", "Running or cycling"),
        Q_("q041", "A team sport"),
        Q_("q041", "A walk counts"),
    ),
}


def question(card_id: str, tr: Translator) -> tuple[str, tuple[str, str, str]]:
    """A card's question and its three answers in the translator's language."""
    ask, first, second, third = TEXTS[card_id]
    deck = tr.in_domain(DOMAIN)
    return deck.pgettext(card_id, ask), (
        deck.pgettext(card_id, first),
        deck.pgettext(card_id, second),
        deck.pgettext(card_id, third),
    )
