"""Reading the similarity pages the grader writes, and writing the submissions they compare (tests' helpers)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path


def package(folder: Path, engine: str, nn: str) -> Path:
    """A package-layout submission in ``folder`` holding ``engine`` and ``nn``."""
    (folder / "micrograd").mkdir(parents=True)
    (folder / "micrograd" / "__init__.py").write_text("")
    (folder / "micrograd" / "engine.py").write_text(engine, encoding="utf-8")
    (folder / "micrograd" / "nn.py").write_text(nn, encoding="utf-8")
    return folder


class Page(HTMLParser):
    """Every tag of a page with its attributes, its text, and how many non-space characters each side's column of an
    evidence page highlights (``<mark>`` inside ``<section id="side-a">`` or ``side-b``)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text = ""
        self.marked = {"a": 0, "b": 0}
        self._side, self._marks = "", 0
        self.feed(text)

    @property
    def tag_names(self) -> list[str]:
        return [tag for tag, _ in self.tags]

    @property
    def words(self) -> str:
        """The text with its white space as single spaces."""
        return " ".join(self.text.split())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "section" and str(found.get("id") or "").startswith("side-"):
            self._side = str(found["id"])[-1]
        if tag == "mark" and self._side:
            self._marks += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "mark" and self._marks:
            self._marks -= 1
        if tag == "section":
            self._side = ""

    def handle_data(self, data: str) -> None:
        self.text += data
        if self._marks and self._side:
            self.marked[self._side] += len("".join(data.split()))
