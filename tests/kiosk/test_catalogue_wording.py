"""The catalogues say things one way (issue 36): Spanish and Catalan keep one form of address,
the one the rest of the kiosk uses (Spanish "Escriba", "pulse"; Catalan "Escriviu", "feu
servir"), and "Round 3 · Table 7" is written the same before and after a verdict in every
language; the challenger is asked for as "Who challenges? Tap their name."."""

from __future__ import annotations

import re
import tomllib
from importlib import resources

import pytest
from babel.messages.pofile import read_po

from kiosk.i18n import TRANSLATIONS

# The informal (tú) imperatives a kiosk's sentence could start with; the catalogues address
# the players formally (usted in Spanish, vosaltres in Catalan).
INFORMAL = {
    "es": (
        "toca pulsa escribe elige usa abre vuelve llama pide comprueba compara imprime quita "
        "separa teclea introduce mira prueba busca añade borra guarda descarga instala escanea "
        "activa confía ejecuta cierra deja intenta revisa selecciona avisa haz pon espera "
        "corrige indica recarga restaura detén inicia"
    ).split(),
    "ca": (
        "toca prem escriu fes tria obre torna crida demana espera comprova compara imprimeix "
        "treu separa introdueix mira prova cerca afegeix esborra desa baixa instal·la escaneja "
        "activa confia executa tanca deixa intenta revisa selecciona avisa posa digues ves "
        "corregeix indica recarrega restaura atura inicia engega guarda"
    ).split(),
}
FORMAL = {"es": ("Escriba", "pulse"), "ca": ("Escriviu", "feu servir")}
# where a sentence starts (a verb there is an imperative), then "first", "now", "then"
CLAUSE = r"(?:^|[.:;?!¿¡(]\s*)(?:(?:primero|primer|ahora|ara|luego|després)\s+)?"
# "your" said to one person familiarly (tu, tus; el teu, la teva), where the formal is "su",
# "el vostre"
FAMILIAR = {"es": r"\b(?:tu|tus|tú)\b", "ca": r"\b(?:teu|teva|teus|teves)\b"}
QUOTED = re.compile(r"«[^»]*»|“[^”]*”|\"[^\"]*\"")  # a device's own labels, quoted as it says them


def catalogue(language: str):
    with open(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po", "rb") as po:
        return read_po(po)


def said(language: str) -> dict[str, str]:
    """Every message's translation(s), by message id (plural forms joined)."""
    found = {}
    for message in catalogue(language):
        if message.id:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            key = message.id if isinstance(message.id, str) else message.id[0]
            found[key] = " | ".join(strings)
    return found


@pytest.mark.parametrize("language", ["es", "ca"])
def test_spanish_and_catalan_keep_one_form_of_address(language):
    informal = re.compile(CLAUSE + r"(" + "|".join(INFORMAL[language]) + r")\b", re.I)
    found = [
        (word.group(1), text)
        for text in said(language).values()
        for word in [informal.search(QUOTED.sub("«»", text))]
        if word
    ]
    assert found == [], f"informal address in {language}: {found}"
    familiar = re.compile(FAMILIAR[language], re.I)
    owned = [text for text in said(language).values() if familiar.search(QUOTED.sub("«»", text))]
    assert owned == [], f"a familiar 'your' in {language}: {owned}"
    everything = " ".join(said(language).values())
    for formal in FORMAL[language]:
        assert formal in everything  # the form the rest of the kiosk uses is there


@pytest.mark.parametrize("language", ["es", "ca"])
def test_the_tsh_strings_speak_as_the_rest_of_the_kiosk(language):
    texts = said(language)
    expected = {
        "es": {
            "Type the round and table as usual.": "Escriba la ronda y la mesa como siempre.",
            "Who challenges? Tap their name.": "¿Quién impugna? Toque su nombre.",
        },
        "ca": {
            "Type the round and table as usual.": "Escriviu la ronda i la taula com sempre.",
            "Who challenges? Tap their name.": "Qui impugna? Toqueu-ne el nom.",
        },
    }[language]
    for message, text in expected.items():
        assert texts[message] == text


@pytest.mark.parametrize("language", ["en", "pl", "es", "ca", "fr"])
def test_round_and_table_are_written_the_same_before_and_after_the_verdict(language):
    texts = said(language) if language != "en" else {}

    def say(message: str) -> str:
        return (texts.get(message) or message).format(
            round=3, table=7, first="Ann", second="Ben", challenger="Ann"
        )

    before = say("Round {round} · Table {table}")
    for after in (
        "Round {round} · Table {table} · challenger {challenger}",
        "Round {round} · Table {table} · {first} v {second} · challenger {challenger}",
    ):
        assert say(after).startswith(before + " · "), (language, say(after))


def test_the_challenger_is_asked_for_as_who_challenges():
    english = (TRANSLATIONS / "messages.pot").read_text()
    assert 'msgid "Who challenges? Tap their name."' in english
    assert "who challenges first" not in english


@pytest.mark.parametrize("language", ["pl", "es", "ca", "fr"])
def test_every_shipped_recipes_description_is_translated(language):
    """A kiosk shows a lexicon's description in its language, or not at all (papercut 7): the
    shipped recipes' descriptions are in the catalogues."""
    recipes = resources.files("lexicons").joinpath("recipes")
    descriptions = [
        tomllib.loads(item.read_text(encoding="utf-8")).get("description")
        for item in recipes.iterdir()
        if item.name.endswith(".toml")
    ]
    texts = said(language)
    assert len(descriptions) >= 6
    for description in descriptions:
        assert texts.get(description), f"{description!r} has no {language} translation"
