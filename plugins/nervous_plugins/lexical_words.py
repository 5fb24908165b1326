"""Word normalisation for the ``lexical`` matcher: a light stemmer and a related-word table.

Both run on lower-case words. The stemmer folds inflection and the common derivational suffixes
(``translation``/``translating`` → ``transl``) so a task and a region meet on one term without the
over-eager collisions of a fixed prefix (``international``/``internet``). The related-word table
groups generic tool vocabulary (``photo``/``picture``/``image``); the matcher uses it only on the
query side, at a reduced weight, so it never changes what is stored.
"""

from __future__ import annotations

import re
from functools import lru_cache

# patterns, not compiled objects: ``re`` compiles them on first use (a miss on an empty cortex stems nothing)
_VOWEL = r"[aeiouy]"
#: a doubled final consonant left by ``-ing``/``-ed`` (``planned`` → ``plan``); not l, s, z
_DOUBLED = r"([bdfgkmnprt])\1$"
#: words whose final ``s`` is not a plural
_KEEP_S = frozenset({"news", "series", "species", "lens", "always", "perhaps", "whereas", "sometimes"})
#: (suffix, replacement, letters that must remain), first match wins; applied at most twice
_DERIVATIONAL = (
    ("ization", "ize", 3), ("isation", "ize", 3), ("ational", "ate", 3), ("fulness", "ful", 3),
    ("iveness", "ive", 3), ("ousness", "ous", 3), ("ability", "able", 3), ("ibility", "ible", 3),
    ("ically", "ic", 3), ("ation", "ate", 3), ("ition", "ite", 3), ("ution", "ute", 3), ("ness", "", 3),
    ("ment", "", 4), ("ical", "ic", 3), ("ally", "al", 3), ("ity", "", 4), ("ly", "", 4),
    ("ise", "ize", 3), ("ive", "", 4), ("ful", "", 4), ("ous", "", 4), ("able", "", 4), ("ible", "", 4),
    ("ator", "ate", 3), ("sion", "s", 3), ("tion", "t", 3), ("er", "", 5), ("or", "", 5), ("ist", "", 4),
    ("ism", "", 4), ("al", "", 5), ("ic", "", 4), ("ize", "", 4), ("ate", "", 4), ("ing", "", 3),
)


def _inflection(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _KEEP_S:
        word = word[:-1]
    for suffix in ("ing", "ed"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and re.search(_VOWEL, base):
            if base.endswith("i"):
                base = base[:-1] + "y"
            elif base.endswith(("at", "bl", "iz")):
                base += "e"
            elif re.search(_DOUBLED, base):
                base = base[:-1]
            return base
    return word


@lru_cache(maxsize=65536)
def light_stem(word: str) -> str:
    """The matching term of a lower-case word (deterministic, no data files)."""
    word = _inflection(word)
    for _round in range(2):
        for suffix, replacement, keep in _DERIVATIONAL:
            if not word.endswith(suffix):  # checked first: most suffixes never match (start-up)
                continue
            base = word[: -len(suffix)]
            if len(base) >= keep and re.search(_VOWEL, base):
                word = base + replacement
                break
        else:
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word.endswith("y"):
        word = word[:-1] + "i"
    return word


#: Generic tool vocabulary that users phrase in different words. One group per line; a query word
#: of a group also looks for the other words of its group (at the matcher's ``related_weight``).
RELATED_WORDS = """
image picture photo photograph pic visual illustration graphic
video clip footage film movie
music song track tune melody album playlist
audio sound voice speech spoken
podcast episode
book novel ebook
article post blog essay
news headline
document doc paper file report
chat conversation dialogue transcript
email mail inbox
message text sms
note notes memo journal diary
task todo chore
schedule calendar agenda appointment meeting
reminder remind alert notify notification
summary summarize summarise recap digest overview gist tldr
translate translation translator language
write writing writer draft compose
edit proofread rewrite revise
search find lookup locate seek discover
recommend recommendation suggest suggestion advice advise tip
buy purchase shop shopping order checkout
price cost pricing fee rate expensive cheap affordable
deal discount coupon sale bargain promo voucher
product item gadget goods merchandise
store shop retailer marketplace
car vehicle automobile auto
travel trip vacation holiday journey itinerary tour
flight airline airfare plane
hotel lodging accommodation stay resort hostel
restaurant dining eatery cafe
food meal dish cuisine
recipe cook cooking bake baking ingredient
weather forecast climate temperature rain
map location directions route navigation address
job career employment vacancy hiring resume recruit
money finance financial budget funds funding
invest investment investor portfolio
stock share equity ticker
crypto cryptocurrency bitcoin blockchain token
bank banking account loan mortgage credit
tax taxes
insurance policy coverage
law legal lawyer attorney court lawsuit
health medical medicine doctor clinic symptom disease illness
fitness workout exercise gym training
diet nutrition calorie
mental therapy anxiety stress mood
learn learning study education course lesson tutor teach class school
quiz trivia test exam
game gaming play player
sport sports match team league score
code coding program programming developer software script
bug error debug fix
server cloud infrastructure hosting deploy deployment
database sql query table
data dataset statistics analytics metrics
chart graph plot diagram visualization visualisation
spreadsheet excel sheet csv
website site web webpage page url link domain
seo ranking keyword keywords
ad ads advert advertisement advertising campaign marketing promote promotion
social twitter instagram facebook tiktok linkedin
brand logo branding
design designer template layout
presentation slides slideshow deck
resize crop compress scale
convert conversion export format
download save
upload share
security secure privacy password vulnerability breach
company business firm organization organisation startup enterprise corporate
customer client user
event concert show festival
ticket tickets booking reservation reserve
movie film cinema series tv watch streaming
gift present
fashion style outfit clothing clothes apparel
home house property estate apartment rent
pet dog cat animal
kid child children family parent
idea brainstorm inspiration creative
question answer ask
research study scientific science paper academic journal
nonprofit charity donation donate volunteer
"""


@lru_cache(maxsize=8)
def related_terms(prefix: int = 0) -> dict[str, frozenset[str]]:
    """term → the other terms of every group it belongs to (terms as the matcher makes them)."""
    out: dict[str, set[str]] = {}
    for line in RELATED_WORDS.strip().splitlines():
        terms = {_cut(light_stem(w), prefix) for w in line.split()}
        for term in terms:
            out.setdefault(term, set()).update(terms - {term})
    return {term: frozenset(others) for term, others in out.items() if others}


def _cut(term: str, prefix: int) -> str:
    return term[:prefix] if prefix else term
