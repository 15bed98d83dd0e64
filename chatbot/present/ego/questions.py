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
        Q_("q004", "Your favourite kind of weather?"),
        Q_("q004", "Sunny and hot"),
        Q_("q004", "Cool and breezy"),
        Q_("q004", "Rainy days"),
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
        Q_("q006", "Stays near the food"),
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
    "q042": (
        Q_("q042", "Coriander in your food?"),
        Q_("q042", "Yes, lots"),
        Q_("q042", "A little is fine"),
        Q_("q042", "Pick it all out"),
    ),
    "q043": (
        Q_("q043", "When do you take a shower?"),
        Q_("q043", "In the morning"),
        Q_("q043", "At night"),
        Q_("q043", "Both, of course"),
    ),
    "q044": (
        Q_("q044", "At karaoke, you're the one who…?"),
        Q_("q044", "Grabs the mic"),
        Q_("q044", "Sings along in the back"),
        Q_("q044", "Picks the songs"),
    ),
    "q045": (
        Q_("q045", "Splitting the bill after a meal?"),
        Q_("q045", "Split it evenly"),
        Q_("q045", "Each pays their own"),
        Q_("q045", "I'll treat this time"),
    ),
    "q046": (
        Q_("q046", "The best time of day?"),
        Q_("q046", "Morning"),
        Q_("q046", "Afternoon"),
        Q_("q046", "Night"),
    ),
    "q047": (
        Q_("q047", "On a plane or bus, your seat?"),
        Q_("q047", "Window"),
        Q_("q047", "Aisle"),
        Q_("q047", "Wherever, I'll sleep"),
    ),
    "q048": (
        Q_("q048", "How many photos are on your phone?"),
        Q_("q048", "Under a thousand"),
        Q_("q048", "A few thousand"),
        Q_("q048", "Ten thousand plus"),
    ),
    "q049": (
        Q_("q049", "Air conditioning at night?"),
        Q_("q049", "Cold as a fridge"),
        Q_("q049", "Cool, with a blanket"),
        Q_("q049", "A fan is enough"),
    ),
    "q050": (
        Q_("q050", "Your piggy bank is full. You…?"),
        Q_("q050", "Open it and spend"),
        Q_("q050", "Put it in the bank"),
        Q_("q050", "Start another one"),
    ),
    "q051": (
        Q_("q051", "How do you like foreign films?"),
        Q_("q051", "With subtitles"),
        Q_("q051", "Dubbed"),
        Q_("q051", "I don't watch them"),
    ),
    "q052": (
        Q_("q052", "Invisible for one day. You…?"),
        Q_("q052", "Sneak into a concert"),
        Q_("q052", "Prank my friends"),
        Q_("q052", "Still stay at home"),
    ),
    "q053": (
        Q_("q053", "Your hair right now?"),
        Q_("q053", "Freshly done"),
        Q_("q053", "Needs a cut"),
        Q_("q053", "Whatever happens"),
    ),
    "q054": (
        Q_("q054", "The last piece on the shared plate?"),
        Q_("q054", "I take it"),
        Q_("q054", "I offer it around"),
        Q_("q054", "Nobody ever takes it"),
    ),
    "q055": (
        Q_("q055", "How do you sleep?"),
        Q_("q055", "On my back"),
        Q_("q055", "On my side"),
        Q_("q055", "On my stomach"),
    ),
    "q056": (
        Q_("q056", "A day at the theme park. You head for…?"),
        Q_("q056", "The scariest ride"),
        Q_("q056", "The gentle rides"),
        Q_("q056", "Snacks and shows"),
    ),
    "q057": (
        Q_("q057", "Your birthday: how do you want it?"),
        Q_("q057", "A big party"),
        Q_("q057", "Dinner with friends"),
        Q_("q057", "Quiet, no fuss"),
    ),
    "q058": (
        Q_("q058", "Breakfast is…?"),
        Q_("q058", "The best meal of the day"),
        Q_("q058", "Just coffee"),
        Q_("q058", "What breakfast?"),
    ),
    "q059": (
        Q_("q059", "Planning a trip, you…?"),
        Q_("q059", "Plan every hour"),
        Q_("q059", "Book a room, wing it"),
        Q_("q059", "Just go"),
    ),
    "q060": (
        Q_("q060", "Your phone is usually on…?"),
        Q_("q060", "Loud"),
        Q_("q060", "Vibrate"),
        Q_("q060", "Silent"),
    ),
    "q061": (
        Q_("q061", "Plants at home?"),
        Q_("q061", "A little jungle"),
        Q_("q061", "One or two"),
        Q_("q061", "They never survive"),
    ),
    "q062": (
        Q_("q062", "At a sale, you…?"),
        Q_("q062", "Buy only what I need"),
        Q_("q062", "Fill the basket"),
        Q_("q062", "Stay away"),
    ),
    "q063": (
        Q_("q063", "A sad movie. You…?"),
        Q_("q063", "Cry like a baby"),
        Q_("q063", "A tear or two"),
        Q_("q063", "Dry eyes"),
    ),
    "q064": (
        Q_("q064", "One food for the rest of your life?"),
        Q_("q064", "Rice with fried egg"),
        Q_("q064", "Noodle soup"),
        Q_("q064", "Pizza"),
    ),
    "q065": (
        Q_("q065", "What's always in your bag?"),
        Q_("q065", "Snacks"),
        Q_("q065", "A charger"),
        Q_("q065", "Everything, just in case"),
    ),
    "q066": (
        Q_("q066", "Your favourite dessert?"),
        Q_("q066", "Ice cream"),
        Q_("q066", "Cake"),
        Q_("q066", "Fresh fruit"),
    ),
    "q067": (
        Q_("q067", "How fast do you eat?"),
        Q_("q067", "First one done"),
        Q_("q067", "Average"),
        Q_("q067", "Last one at the table"),
    ),
    "q068": (
        Q_("q068", "A book, a film or a game for tonight?"),
        Q_("q068", "A book"),
        Q_("q068", "A film"),
        Q_("q068", "A game"),
    ),
    "q069": (
        Q_("q069", "Meeting new people makes you…?"),
        Q_("q069", "Excited"),
        Q_("q069", "A bit shy"),
        Q_("q069", "Tired"),
    ),
    "q070": (
        Q_("q070", "The best way to travel around town?"),
        Q_("q070", "Walking"),
        Q_("q070", "Bike or scooter"),
        Q_("q070", "Car or taxi"),
    ),
    "q071": (
        Q_("q071", "Souvenirs from a trip?"),
        Q_("q071", "Snacks for everyone"),
        Q_("q071", "One thing for myself"),
        Q_("q071", "Only photos"),
    ),
    "q072": (
        Q_("q072", "Light mode or dark mode?"),
        Q_("q072", "Light"),
        Q_("q072", "Dark"),
        Q_("q072", "I never changed it"),
    ),
    "q073": (
        Q_("q073", "Cooking at home?"),
        Q_("q073", "Almost every day"),
        Q_("q073", "Sometimes"),
        Q_("q073", "I only boil water"),
    ),
    "q074": (
        Q_("q074", "A friend asks to borrow money. You…?"),
        Q_("q074", "Lend it gladly"),
        Q_("q074", "Only a small amount"),
        Q_("q074", "Treat them instead"),
    ),
    "q075": (
        Q_("q075", "The music you play most?"),
        Q_("q075", "Pop"),
        Q_("q075", "Rock"),
        Q_("q075", "Anything chill"),
    ),
    "q076": (
        Q_("q076", "A time machine for one trip. You go…?"),
        Q_("q076", "Back to the past"),
        Q_("q076", "Into the future"),
        Q_("q076", "I'd stay here"),
    ),
    "q077": (
        Q_("q077", "Your look in photos?"),
        Q_("q077", "Same pose every time"),
        Q_("q077", "Silly faces"),
        Q_("q077", "Behind the camera"),
    ),
    "q078": (
        Q_("q078", "Street food or a restaurant?"),
        Q_("q078", "Street food"),
        Q_("q078", "A restaurant"),
        Q_("q078", "A food court"),
    ),
    "q079": (
        Q_("q079", "Before a big day, you…?"),
        Q_("q079", "Sleep early"),
        Q_("q079", "Stay up worrying"),
        Q_("q079", "Prepare all night"),
    ),
    "q080": (
        Q_("q080", "Your kind of holiday?"),
        Q_("q080", "Do nothing"),
        Q_("q080", "Try new things"),
        Q_("q080", "See friends every day"),
    ),
    "q081": (
        Q_("q081", "Calls or messages?"),
        Q_("q081", "Calls"),
        Q_("q081", "Messages"),
        Q_("q081", "Voice notes"),
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
