#!/usr/bin/python3
"""Writes regex-module-<release>.ts: the character tables of the third-party `regex` module
(mrab-regex) that the running interpreter has, for patterns NLTK compiles with it
(TweetTokenizer always; RegexpTokenizer and wordpunct_tokenize from NLTK 3.10). Its
Unicode data is its own, newer than Python's, and it defines the classes differently
from `re`: `\\w` takes in the combining marks and leaves out '²' and '½', `\\s` leaves out
'\\x1c'-'\\x1f'; IGNORECASE matches a character with its case variants as the module
lists them (`i` matches 'İ' but not 'ı', unlike sre).

    /usr/bin/python3 src/python/regex-module-tables.py            # Debian's python3-regex 2022.10.31
    python src/python/regex-module-tables.py    # pip's regex 2026.9.29

Each table is read off the module itself, by matching every code point: `\\w`, `\\d`,
`\\s` (V0, the default, with UNICODE), `\\p{L}` and `\\p{N}`; and the case variants of each
code point (`_regex.get_all_cases`, what its IGNORECASE matching consults; 'I' lists 'ı'
and 'i' lists 'İ', so they are kept per code point, not as groups). check() then
proves the model the TypeScript uses against the module's own matching over all of Unicode:
a cased literal under IGNORECASE matches exactly its variants; a class under IGNORECASE
matches a character when one of its variants is a member (none, for a negated class); `\\b`
is a change between `\\w` and not.
"""
import importlib.metadata
import os
import random
import sys

import regex
from regex import _regex

HERE = os.path.dirname(os.path.abspath(__file__))
CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
ALL = "".join(map(chr, CODE_POINTS))


def ranges_of(cps):
    out = []
    for cp in sorted(cps):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def matched(pattern, flags=0):
    """The code points `pattern` matches as one character, by the module's own scan of all of them."""
    return {ord(c) for c in regex.findall(pattern, ALL, flags=flags)}


def case_variants():
    """Each code point's case variants, where it has any: not an equivalence ('I' lists 'ı', 'i' does not)."""
    flags = regex.I | regex.U
    variants = {}
    for cp in CODE_POINTS:
        cases = _regex.get_all_cases(flags, cp)
        if len(cases) > 1:
            assert cp in cases, hex(cp)
            variants[cp] = tuple(sorted(cases))
    return variants


def model_class(members, negated, variants):
    """The code points a class matches under IGNORECASE, by the model: some variant is a member."""
    out = set()
    for cp in CODE_POINTS:
        hit = any(v in members for v in variants.get(cp, (cp,)))
        if hit != negated:
            out.add(cp)
    return out


def check(tables, variants):
    # A cased literal under IGNORECASE matches exactly its variants.
    for cp, cases in variants.items():
        assert matched(regex.escape(chr(cp)), regex.I) == set(cases), hex(cp)
    # Classes under IGNORECASE: ranges and class escapes, plain and negated.
    rng = random.Random(1)
    escapes = {r"\w": tables["word"], r"\d": tables["digit"], r"\s": tables["space"]}
    for trial in range(40):
        parts, members = [], set()
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.3:
                esc = rng.choice(list(escapes))
                parts.append(esc)
                members |= escapes[esc]
            else:
                lo = rng.choice([0x41, 0x61, 0xc0, 0x100, 0x130, 0x370, 0x3c2, 0x400, 0x1e00, 0x2160, 0x10400, 0x1e900, rng.randrange(0x20, 0x3000)])
                hi = lo + rng.randint(0, 40)
                parts.append(f"\\U{lo:08x}-\\U{hi:08x}")
                members |= set(range(lo, hi + 1))
        negated = rng.random() < 0.5
        pattern = "[" + ("^" if negated else "") + "".join(parts) + "]"
        assert matched(pattern, regex.I) == model_class(members, negated, variants), pattern
    # \b: a change between \w and not \w (and \B matches in the empty string).
    word = tables["word"]
    for trial in range(300):
        s = "".join(chr(rng.choice([0x61, 0x20, 0x301, 0xb2, 0x5f, 0x2e, 0x4e00, 0x1f600, 0x31, 0x660])) for _ in range(rng.randint(0, 8)))
        expected = [i for i in range(len(s) + 1) if (i > 0 and ord(s[i - 1]) in word) != (i < len(s) and ord(s[i]) in word)]
        assert [m.start() for m in regex.finditer(r"\b", s)] == expected, s
    assert regex.findall(r"\B", "") == [""]


def fmt(name, cps):
    flat = ",".join(f"0x{a:x},0x{b:x}" for a, b in ranges_of(cps))
    return f"  {name}: [{flat}],\n"


def main():
    release = importlib.metadata.version("regex")
    tables = {
        "word": matched(r"\w"),
        "digit": matched(r"\d"),
        "space": matched(r"\s"),
        "letter": matched(r"\p{L}"),
        "number": matched(r"\p{N}"),
    }
    variants = case_variants()
    check(tables, variants)
    const = "REGEX_" + release.replace(".", "_")
    out = os.path.join(HERE, f"regex-module-{release.replace('.', '-')}.ts")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(f"// Generated by regex-module-tables.py from the regex module {release} under Python"
                f" {sys.version.split()[0]}. Do not edit.\n")
        f.write("import type { RegexModuleTables } from './regex-module.js'\n\n")
        f.write(f"/** The regex module {release}'s \\\\w, \\\\d, \\\\s, \\\\p{{L}}, \\\\p{{N}} (flat [first, last] ranges) and case variants. */\n")
        f.write(f"export const {const}: RegexModuleTables = {{\n  release: '{release}',\n")
        for name in ("word", "digit", "space", "letter", "number"):
            f.write(fmt(name, tables[name]))
        flat = ",".join(f"0x{cp:x},{len(v)}," + ",".join(f"0x{c:x}" for c in v) for cp, v in sorted(variants.items()))
        f.write("  /** Each code point with case variants: [code point, count, ...variants (itself among them)]. */\n")
        f.write(f"  caseVariants: [{flat}]\n}}\n")
    print(f"{os.path.basename(out)}: " + ", ".join(f"{k} {len(v)}" for k, v in tables.items()) + f", {len(variants)} cased")


if __name__ == "__main__":
    main()
