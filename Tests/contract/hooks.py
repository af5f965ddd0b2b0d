"""schemathesis hooks for run-schemathesis.sh: the NDJSON serializer, and the check that lets
through only the refusals listed in allowed-refusals.toml."""

import os
import re
import tomllib

import schemathesis

# The history import's NDJSON body is text: sent as text/plain would be, under its own media type.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")

# schemathesis 4.32.5 scans 2xx bodies for same-origin URLs with urlsplit, which raises on a
# string such as "https://[x" (an unclosed IPv6 bracket) and ends the whole run with an internal
# error. The real-time URL the service stores and echoes is such a string when schemathesis
# generates one (its pattern allows it). A string that does not parse is no link: skip it.
from schemathesis.engine import observations as _observations

_same_origin_path = _observations._same_origin_path


def _same_origin_path_or_none(value, origin):
    try:
        return _same_origin_path(value, origin)
    except ValueError:
        return None


_observations._same_origin_path = _same_origin_path_or_none

# What schemathesis's positive_data_acceptance accepts for valid data unless told otherwise;
# schemathesis.toml adds 400 for the operations that have entries in allowed-refusals.toml.
DEFAULT_ACCEPTED = {"2xx", "3xx", "401", "403", "404", "409", "429", "5xx"}

with open(os.environ["CONTRACT_ALLOWED_REFUSALS"], "rb") as file:
    REFUSALS = tomllib.load(file)["refusal"]
for entry in REFUSALS:
    missing = {"operation", "status", "code", "reason"} - entry.keys()
    if missing or not entry["reason"].strip():
        raise ValueError(f"allowed-refusals.toml: an entry lacks {sorted(missing) or ['a reason']}: {entry}")


def _listed(operation, status, problem):
    """Whether every fault the problem names is one of the listed refusals of the operation."""
    entries = [e for e in REFUSALS if e["operation"] == operation and e["status"] == status
               and e["code"] == problem.get("code")]
    faults = problem.get("errors") or [problem.get("detail", "")]
    return bool(entries) and all(any("error" not in e or re.search(e["error"], str(fault)) for e in entries)
                                 for fault in faults)


@schemathesis.check
def listed_refusals_only(ctx, response, case):
    """A schema-valid request answered with a status that schemathesis.toml adds for its
    operation must be a refusal that allowed-refusals.toml lists."""
    meta = case.meta
    if meta is None:
        # Every generated case carries its metadata; without it this check could not tell
        # valid data from invalid, and returning would let every refusal through unseen.
        raise AssertionError(f"case.meta is missing for {case.operation.method.upper()} {case.operation.path}: "
                             "listed_refusals_only cannot tell whether the request was schema-valid")
    if not meta.generation.mode.is_positive:
        return None
    status = response.status_code
    widened = set(ctx.config.positive_data_acceptance.expected_statuses) - DEFAULT_ACCEPTED
    if str(status) not in widened and f"{status // 100}xx" not in widened:
        return None
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    try:
        problem = response.json()
    except ValueError:
        problem = None
    if not isinstance(problem, dict) or not _listed(operation, status, problem):
        detail = problem.get("detail") if isinstance(problem, dict) else response.text[:200]
        raise AssertionError(f"A schema-valid request was refused with {status} for a reason that "
                             f"allowed-refusals.toml does not list: {detail}")
    return None
