"""A unit of work's two ends: what it found (`Found`) and what it decided (`Outcome`).

`Sessions.change` runs one: claim, load, decide (a `Work`, which touches no store), save.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Generic, TypeVar

from chatbot.core.session import Session
from chatbot.store.base import Doc, Entry, Write

T = TypeVar("T")


@dataclass(frozen=True)
class Found:
    """A chat's session as a unit of work found it: `chat` is the chat whose game it is (a
    chat that moved is followed), `handled` whether the update asking was handled before."""

    chat: str
    doc: Doc | None
    handled: bool = False
    others: Mapping[str, Doc | None] = field(default_factory=dict)  # `also`'s documents
    # What makes a loaded session fit for its game (`Sessions.fit`); BadSession if it is not.
    fit: Callable[[Session], Session] = field(default=lambda session: session, compare=False)

    @cached_property
    def session(self) -> Session | None:
        """The stored session (None: none); BadSession when it cannot be read."""
        if self.doc is None:
            return None
        return self.fit(Session.loads(self.doc.data, self.doc.fields))

    @property
    def version(self) -> int:
        return 0 if self.doc is None else self.doc.version


@dataclass
class Outcome(Generic[T]):
    """What a unit of work decided: its `result`, and what to write in one atomic step: the
    session saved (`save`; `owed`: the change makes messages this process now owes), or it
    deleted (`delete`), with other documents of the chat (`writes`) and list `entries`."""

    result: T
    save: Session | None = None
    owed: bool = False
    delete: bool = False
    writes: Sequence[Write] = ()
    entries: Sequence[Entry] = ()
    written: bytes | None = None  # the session's document as saved

    @property
    def writes_nothing(self) -> bool:
        return self.save is None and not self.delete and not self.writes and not self.entries


Work = Callable[[Found], Awaitable[Outcome[T]]]
