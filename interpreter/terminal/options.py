"""The legal options as a person meets them: numbered in the order the hand is shown, and matched
from what they type — a number, the whole text, or any unique run of words in it."""
from __future__ import annotations


def hand_order(state, style) -> list:
    """``state.legal_actions()``, the options that name a card put in the order the hand is shown
    (``style.key``; a choice block's picks of cards each apart, in the order written); 'nothing'
    and the like first, as the file lists them."""
    actions = state.legal_actions()
    pending = getattr(state, "open_decision", None)
    if not actions or pending is None:
        return actions
    options = pending[2]
    names = state.program.card_names
    if len(options) != len(actions):
        return actions
    keyed = []
    tagged = state.program.decisions[pending[1]].type.startswith("branches:")
    for i, (opt, act) in enumerate(zip(options, actions)):
        branch = ()
        if tagged:
            branch, opt = (opt[0],), opt[1]     # a choice block's (branch, value): by branch, then the hand
        if isinstance(opt, int) and not isinstance(opt, bool) and 0 <= opt < len(names) \
                and names[opt] in str(act):
            keyed.append(((1, (*branch, *style.key.get(names[opt], ())), i), act))
        else:
            keyed.append(((0, (), i), act))
    if not any(k[0] for k, _ in keyed):
        return actions
    return [a for _, a in sorted(keyed, key=lambda t: t[0])]


def _words(text: str) -> list[str]:
    return text.lower().split()


def _runs(typed: list[str], words: list[str], last_prefix: bool) -> bool:
    """Do the typed words appear, in order and adjacent, among ``words``? With ``last_prefix`` the
    last typed word may be the beginning of a word."""
    k = len(typed)
    for i in range(len(words) - k + 1):
        if words[i:i + k - 1] == typed[:-1]:
            w = words[i + k - 1]
            if w == typed[-1] or (last_prefix and w.startswith(typed[-1])):
                return True
    return False


def _candidates(t: str, actions: list) -> list:
    """The options ``t`` may mean, by the first test that finds any: the whole text; a run of whole
    words; the beginning of the whole text; a run of words whose last is a beginning."""
    low = t.lower()
    typed = _words(t)
    tests = [
        lambda a: a.lower() == low,
        lambda a: _runs(typed, _words(a), False),
        lambda a: a.lower().startswith(low),
        lambda a: _runs(typed, _words(a), True),
    ]
    for test in tests:
        found = [a for a in actions if test(str(a))]
        if found:
            return found
    return []


def resolve_input(text: str, actions: list) -> tuple[object | None, str | None]:
    """Match a typed line to a legal action: its number, its text, or any unique run of words in it
    (``blue`` for 'name the colour blue', ``red shield`` for 'play red Shield'), case-insensitively.
    Returns (action, None) or (None, a message that lists the candidates)."""
    t = " ".join(text.split())
    if t.isascii() and t.isdigit():       # '²' and other digits int() does not read are text
        n = int(t)
        if 1 <= n <= len(actions):
            return actions[n - 1], None
        return None, f"there is no option {n}; choose 1 to {len(actions)}"
    found = _candidates(t, actions)
    if len(found) == 1:
        return found[0], None
    if len(found) > 1:
        if len({str(a) for a in found}) == 1:   # the same text twice: the first is as good
            return found[0], None
        shown = "\n".join(f"  {actions.index(a) + 1:>2}. {a}" for a in found[:8])
        more = f"\n  ... and {len(found) - 8} more" if len(found) > 8 else ""
        return None, f"'{t}' could mean:\n{shown}{more}\ntype more of it, or its number"
    return None, f"'{t}' is not a legal option or a command; type 'help' for the commands"


def find_card(text: str, names: list[str]) -> tuple[str | None, list[str]]:
    """A card name from what was typed, by the same rules as an option: (name, []) or (None, candidates)."""
    unique = list(dict.fromkeys(names))
    found = _candidates(" ".join(text.split()), unique)
    return (found[0], []) if len(found) == 1 else (None, found)
