"""Every difference between tgftp 0.7.0 and gftpwb that the compat suite accepts, each with its reason.

An entry matches differences by case name, path and aspect (fnmatch patterns). A difference that no
entry matches fails its case; an entry that matches nothing fails ``test_every_allow_list_entry_is_used``,
so the list never outlives what it excuses. docs/tgftp-compat.md explains each entry for users.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass


@dataclass(frozen=True)
class Allowed:
    case: str
    path: str
    aspect: str
    reason: str

    def matches(self, case: str, path: str, aspect: str) -> bool:
        return (fnmatch.fnmatchcase(case, self.case) and fnmatch.fnmatchcase(path, self.path)
                and fnmatch.fnmatchcase(aspect, self.aspect))


ALLOW: list[Allowed] = [
]
