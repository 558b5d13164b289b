"""axe-core (axe-playwright-python) on a page in its current state: every violation, named."""

from __future__ import annotations


def axe_missing_reason() -> str | None:
    """Why axe cannot run here, or None when it can."""
    try:
        import axe_playwright_python  # noqa: F401
    except ImportError:
        return "axe-playwright-python is not installed (pip install -e '.[test]')"
    return None


def axe_violations(page) -> list[str]:
    """Each axe-core violation on the page as it is now: rule, impact and where."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{rule['id']} ({rule['impact']}): {rule['help']} at "
        + "; ".join(" ".join(node["target"]) for node in rule["nodes"])
        for rule in found
    ]


class AxeRecord:
    """Runs axe on each state of a page and keeps what it finds, to assert once at the end."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.states: list[str] = []

    def check(self, page, state: str) -> None:
        self.states.append(state)
        self.found.extend(f"{state}: {text}" for text in axe_violations(page))

    def assert_clean(self) -> None:
        assert not self.found, "\n".join(self.found)
