"""A file chosen by mistake never has its first line quoted in an error (issue 31 item 6).

A password file, a private key or a token read as a CSV gave "columns found:
'root:$6$…'" / "'-----BEGIN OPENSSH PRIVATE KEY-----'": the secret reached the error box, the
log and any screenshot. A first line is quoted only when it looks like a table's header
(engine.data.text_input.looks_like_header), a long or secret-looking name is described like a
record's cell (engine.data.text_input.cell_text), and otherwise the sentence says what the line
looks like without quoting it. Every secret below is generated here from a fixed seed.
"""

from __future__ import annotations

import base64
import json
import random

import pytest

from engine.aggregates.queries import Domain, load_queries_file
from engine.data.columns import column_names, did_you_mean
from engine.data.errors import InputError
from engine.data.microdata import (
    ColumnSchema,
    Schema,
    infer_schema_from_csvs,
    load_microdata_csv,
)
from engine.data.predictions import load_predictions_csv
from engine.data.tabular import infer_tabular_schema
from engine.data.text_input import (
    check_header,
    column_name_text,
    looks_like_header,
    plain_column_name,
)
from engine.data.traces import load_traces_csv

RNG = random.Random(31)
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
CRYPT = "./" + B64[:-2]


def _chars(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def _b64(n_bytes: int) -> str:
    return base64.b64encode(bytes(RNG.randrange(256) for _ in range(n_bytes))).decode()


def _b64url(n_bytes: int) -> str:
    return base64.urlsafe_b64encode(bytes(RNG.randrange(256) for _ in range(n_bytes))) \
        .decode().rstrip("=")


SHADOW = (f"root:$6${_chars(CRYPT, 16)}${_chars(CRYPT, 86)}:19700:0:99999:7:::\n"
          f"daemon:*:19700:0:99999:7:::\nalice:$y$j9T${_chars(CRYPT, 22)}${_chars(CRYPT, 43)}"
          ":19701:0:99999:7:::\n")
PASSWD = ("root:x:0:0:root:/root:/bin/bash\n"
          "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
          "alice:x:1000:1000:Alice Example:/home/alice:/bin/bash\n")
OPENSSH = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
           + "\n".join(_b64(52) for _ in range(6)) + "\n-----END OPENSSH PRIVATE KEY-----\n")
PGP = ("-----BEGIN PGP MESSAGE-----\n\n" + "\n".join(_b64(48) for _ in range(5))
       + f"\n={_b64(3)}\n-----END PGP MESSAGE-----\n")
BASE64 = _b64(2250) + "\n" + _b64(2250) + "\n"             # a 3,000-character first line
def _jwt(subject: str) -> str:
    def part(obj) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    return (f"{part({'alg': 'HS256', 'typ': 'JWT'})}."
            f"{part({'sub': subject, 'email': f'{subject}@example.org', 'iat': 1764201600})}."
            f"{_b64url(32)}")


JWT = f"{_jwt('alice')}\n{_jwt('bob')}\n"

# Tokens the tests put among column names, drawn once at import (the same in every run).
TOKEN_40, TOKEN_27 = _b64url(30), _b64url(20)
HASH_FIELD = f"$6${_chars(CRYPT, 8)}${_chars(CRYPT, 40)}"

SECRETS = {"shadow": SHADOW, "passwd": PASSWD, "id_ed25519": OPENSSH, "message.asc": PGP,
           "blob.b64": BASE64, "token.jwt": JWT}


def _first_line_pieces(text: str) -> list[str]:
    """Every run of 4+ characters of the first line that is not a separator: none may appear."""
    first = text.splitlines()[0]
    pieces = [p for p in first.replace(":", " ").replace("$", " ").replace("/", " ")
              .replace(".", " ").split() if len(p) >= 4]
    return pieces + ([first] if first else [])


def _microdata(path):
    schema = Schema((ColumnSchema("sex", "quasi_identifier", "categorical", ("F", "M")),
                     ColumnSchema("age", "quasi_identifier", "integer", low=0, high=115)))
    return load_microdata_csv(path, schema)


LOADERS = {
    "training table": lambda p: infer_tabular_schema(str(p)),
    "predictions": load_predictions_csv,
    "traces": load_traces_csv,
    "count-table microdata": _microdata,
}


@pytest.mark.parametrize("loader", list(LOADERS))
@pytest.mark.parametrize("name", list(SECRETS))
def test_a_secret_file_chosen_by_mistake_is_not_quoted(tmp_path, name, loader):
    path = tmp_path / name
    path.write_text(SECRETS[name], encoding="utf-8")
    with pytest.raises(InputError) as raised:
        LOADERS[loader](path)
    message = str(raised.value)
    assert str(path) in message
    message = message.replace(str(path), "FILE")         # its folder may name the user
    assert "does not look like the header row of a table" in message, message
    assert "not quoted here since it may hold private data" in message
    assert "choose the CSV file with the records" in message
    for piece in _first_line_pieces(SECRETS[name]):
        assert piece not in message, (piece, message)
    for marker in ("BEGIN", "$6$", "$y$", "root", "eyJ"):
        assert marker not in message


@pytest.mark.parametrize("loader", list(LOADERS))
def test_a_csv_header_is_still_quoted_but_a_token_in_it_is_not(tmp_path, loader):
    token = TOKEN_40
    path = tmp_path / "people.csv"
    path.write_text(f"first name,income (USD),town,{token}\nA,1,B,x\nC,2,D,y\n",
                    encoding="utf-8")
    with pytest.raises(InputError) as raised:
        LOADERS[loader](path)
    message = str(raised.value)
    assert ("'first name', 'income (USD)', 'town', a 40-character text of letters, digits"
            in message), message
    assert token not in message and "header row of a table" not in message


def test_one_long_or_secret_looking_name_among_plain_ones_is_described():
    token = TOKEN_40
    names = ["age", "sex", "town", "x" * 41, token, "jane@example.org"]
    assert looks_like_header(names) and not looks_like_header(names[2:])
    text = column_names(names)
    assert text.startswith("'age', 'sex', 'town', a 41-character text of letters, a 40-character")
    assert token not in text and "x" * 41 not in text and "jane" not in text
    assert column_name_text("income (USD)") == "'income (USD)'"


@pytest.mark.parametrize("name,plain", [
    ("age", True), ("income (USD)", True), ("Q12_household_size", True), ("2019", True),
    ("root:x:0:0:root:/root:/bin/bash", False), ("-----BEGIN PGP MESSAGE-----", False),
    ("$6$abc$def", False), (TOKEN_27, False), ("0123456789abcdef" * 2, False),
    ("a" * 41, False), ("", False),
])
def test_what_a_column_name_looks_like(name, plain):
    assert plain_column_name(name) is plain


def test_a_repeated_field_of_a_secret_line_is_not_quoted():
    # A password hash is refused as a header outright; a long token is described.
    line = [HASH_FIELD] * 2
    with pytest.raises(InputError) as raised:
        check_header("keys.csv", line)
    assert "does not look like the header row of a table" in str(raised.value)
    assert line[0] not in str(raised.value)
    line = [TOKEN_40] * 2
    with pytest.raises(InputError) as raised:
        check_header("keys.csv", line)
    assert "gives two columns the same name (columns 1 and 2)" in str(raised.value)
    assert line[0] not in str(raised.value)
    with pytest.raises(InputError, match="names column 'age' twice"):
        check_header("people.csv", ["age", "sex", "age"])


def test_did_you_mean_offers_only_a_plain_name():
    secret = "label" + TOKEN_27
    assert did_you_mean("label", [secret]) == ""
    assert did_you_mean("labl", ["label", "sex"]) == " (did you mean 'label'?)"


def test_a_name_of_fraction_signs_is_described_without_a_crash():
    # '½' is alphanumeric but neither a letter nor a digit: describing it raised IndexError.
    assert column_names(["age", "sex", "½" * 50]) \
        == "'age', 'sex', a 50-character text of other characters"


# The hostile pass after the first fix (issue 31 item 6): two count-table paths still quoted a
# secret first line — the inferred schema of the data and the attacker's sample ("its columns
# differ … (first difference: 'root:$6$…')") and a custom release's query file ("row 1, column
# 'root:$6$…' is not an attribute").
DOTENV = f"API_KEY=sk_live_{_b64url(24)}\nDB_PASSWORD={_b64url(12)}\n"
COUNT_TABLE_SECRETS = {**SECRETS, ".env": DOTENV}


def _pieces(text: str) -> list[str]:
    first = text.splitlines()[0]
    return [p for p in first.replace("=", " ").split() if len(p) >= 8] + _first_line_pieces(text)


@pytest.mark.parametrize("secret_first", [True, False])
@pytest.mark.parametrize("name", list(COUNT_TABLE_SECRETS))
def test_a_secret_file_beside_the_attacker_s_sample_is_not_quoted(tmp_path, name,
                                                                   secret_first):
    secret = tmp_path / name
    secret.write_text(COUNT_TABLE_SECRETS[name], encoding="utf-8")
    sample = tmp_path / "sample.csv"
    sample.write_text("sex,age\nF,30\nM,41\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        infer_schema_from_csvs([secret, sample] if secret_first else [sample, secret])
    message = str(raised.value).replace(str(tmp_path), "FOLDER")   # it may name the user
    for piece in _pieces(COUNT_TABLE_SECRETS[name]):
        assert piece not in message, (piece, message)


@pytest.mark.parametrize("name", list(COUNT_TABLE_SECRETS))
def test_a_secret_file_chosen_as_the_release_s_queries_is_not_quoted(tmp_path, name):
    secret = tmp_path / name
    secret.write_text(COUNT_TABLE_SECRETS[name], encoding="utf-8")
    domain = Domain(("sex", "age"), (("F", "M"), tuple(str(a) for a in range(5))))
    with pytest.raises(InputError) as raised:
        load_queries_file(secret, domain)
    message = str(raised.value).replace(str(tmp_path), "FOLDER")   # it may name the user
    for piece in _pieces(COUNT_TABLE_SECRETS[name]):
        assert piece not in message, (piece, message)
