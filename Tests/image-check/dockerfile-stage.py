#!/usr/bin/env python3
"""Reads the last stage of a Dockerfile for `make image-check`: its base image, the RUN
commands (continuation lines joined), the COPY --from destination of the binary, USER,
WORKDIR, ENV, ENTRYPOINT and CMD. Prints them as shell assignments (values quoted), so the
check runs exactly what the Dockerfile names instead of a copy of it."""
import json
import shlex
import sys


def instructions(text):
    """(keyword, argument) per instruction, continuation lines joined, comments dropped."""
    logical, current = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and not current:
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        current += stripped
        if current.strip():
            keyword, _, argument = current.strip().partition(" ")
            logical.append((keyword.upper(), argument.strip()))
        current = ""
    return logical


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    all_instructions = instructions(text)
    last_from = max(i for i, (keyword, _) in enumerate(all_instructions) if keyword == "FROM")
    stage = all_instructions[last_from:]
    out = {"BASE_IMAGE": stage[0][1].split()[0], "RUN_COMMANDS": [], "STAGE_ENV": [], "STAGE_USER": "root", "STAGE_WORKDIR": "/",
           "BINARY_DEST": "", "COMMAND": []}
    entrypoint, cmd = [], []
    for keyword, argument in stage[1:]:
        if keyword == "RUN":
            out["RUN_COMMANDS"].append(argument)
        elif keyword == "COPY" and argument.startswith("--from="):
            out["BINARY_DEST"] = argument.split()[-1]
        elif keyword == "USER":
            out["STAGE_USER"] = argument
        elif keyword == "WORKDIR":
            out["STAGE_WORKDIR"] = argument
        elif keyword == "ENV":
            out["STAGE_ENV"] += shlex.split(argument)
        elif keyword == "ENTRYPOINT":
            entrypoint = json.loads(argument)
        elif keyword == "CMD":
            cmd = json.loads(argument)
    out["COMMAND"] = entrypoint + cmd
    for key, value in out.items():
        if isinstance(value, list) and key == "RUN_COMMANDS":
            print(f"{key}={shlex.quote(' && '.join(value))}")
        elif isinstance(value, list):
            print(f"{key}=({' '.join(shlex.quote(v) for v in value)})")
        else:
            print(f"{key}={shlex.quote(value)}")


if __name__ == "__main__":
    main()
