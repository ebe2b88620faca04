#!/usr/bin/python3
"""Check berth's --json documents against the published JSON Schemas (docs/schema/).

    schema_check.py LOG_DIR    every call the behaviour test logged (tests/cli/common.sh)
    schema_check.py --document SCHEMA FILE [SCHEMA FILE...]   documents (FILE - : stdin)
    schema_check.py --examples docs/json.md  the schemas themselves, and the examples of the
                                             prose reference

A logged call is four files sharing a stem: STEM.args (berth's argv after the binary, NUL
separated), STEM.status (its exit status), STEM.out (its stdout) and STEM.err (its stderr: under
--json berth's own lines there are events, docs/schema/event.json). The schema is chosen from the command line, the
error schema when the document is an error document. Each violation is one line naming the call,
the document, the schema file and where in the document and the schema it failed; the exit
status is 1 when there is any.

Run with Debian's python3 (python3-jsonschema, scripts/bootstrap installs it): /usr/bin/python3.
"""

import json
import os
import sys

import jsonschema

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "schema")

# The document each command prints (restore --list and trust --list print another).
COMMANDS = {
    "new": "new", "list": "list", "path": "path", "status": "status", "discard": "discard",
    "restore": "restore", "diff": "diff", "commit": "commit", "accept": "accept", "sync": "sync",
    "run": "run", "shell": "run", "compare": "compare", "pool": "pool", "watch": "watch", "doctor": "doctor",
    "config": "config", "trust": "trust", "hook": "hook", "integrate": "integrate",
    "setup": "new", "fork": "fork", "pick": "pick",
    "forget": "forget",  # plain folders (issue 17)
    "setup": "new", "gc": "gc", "trash": "trash",
}
# Commands whose non-zero exit status comes with their own document, not an error document.
OWN_STATUS = {"run", "shell", "doctor", "accept", "sync", "fork", "pick", "compare"}
# (accept, sync, pick: 3 with conflicts; fork: 1 or 130 when an attempt failed or it was stopped
# (docs/fork.md); compare: 130 when Ctrl-C stopped its --test commands)
# Global options that take a value (as a separate argument).
VALUE_OPTIONS = {"-C", "-c"}


def load_validators(check_schemas=False):
    """A validator per schema file. Checking the schemas themselves against the 2020-12
    metaschema costs a third of a test's check: only --examples (t_json_schema_check) does it."""
    store, validators = {}, {}
    for name in sorted(os.listdir(SCHEMA_DIR)):
        if name.endswith(".json"):
            with open(os.path.join(SCHEMA_DIR, name), encoding="utf-8") as f:
                schema = json.load(f)
            if check_schemas:
                jsonschema.Draft202012Validator.check_schema(schema)
            store[schema["$id"]] = schema
            validators[name[: -len(".json")]] = schema
    for name, schema in validators.items():
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        validators[name] = jsonschema.Draft202012Validator(schema, resolver=resolver)
    return validators


def json_path(path):
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def deepest(error):
    """For "not valid under any of the given schemas" (an object or null, say): the reason the
    likeliest alternative gave, not the whole instance."""
    while error.context:
        error = max(error.context, key=lambda e: (e.validator != "type", len(e.absolute_path)))
    return error


def unevaluated_echo(error, errors):
    """An "Unevaluated properties" error that only repeats others: jsonschema counts a property
    that failed inside a $ref'd schema as not evaluated, so a bad `changes` is reported twice."""
    if error.validator != "unevaluatedProperties" or not isinstance(error.instance, dict):
        return False
    named = [k for k in error.instance if repr(k) in error.message]
    depth = len(error.absolute_path)
    failed = {e.absolute_path[depth] for e in errors if e is not error
              and len(e.absolute_path) > depth
              and list(e.absolute_path)[:depth] == list(error.absolute_path)}
    return bool(named) and all(k in failed for k in named)


def violations(validator, document):
    """One line per way DOCUMENT breaks the schema (at most five)."""
    errors = list(validator.iter_errors(document))
    errors = [e for e in errors if not unevaluated_echo(e, errors)]
    errors.sort(key=lambda e: [str(p) for p in e.path])
    lines = []
    for e in errors[:5]:
        e = deepest(e)
        where = "/".join(str(p) for p in e.absolute_schema_path)
        message = e.message if len(e.message) <= 300 else e.message[:300] + "..."
        lines.append(f"at {json_path(e.absolute_path)}: {message} (schema: {where})")
    if len(errors) > 5:
        lines.append(f"... and {len(errors) - 5} more")
    return lines


def command_of(argv):
    """The command berth ran (None for help, --version or no command) and its arguments."""
    before = argv[: argv.index("--")] if "--" in argv else argv
    i = 0
    while i < len(before):
        a = before[i]
        if a in VALUE_OPTIONS:
            i += 2
            continue
        if not a.startswith("-"):
            return a, before[i + 1 :]
        i += 1
    return None, before


def last_document(text):
    """run and shell: the document is the last line of stdout, one compact line, after the
    command's own output (docs/run.md)."""
    if not text.endswith("\n"):
        raise ValueError("stdout does not end with a newline")
    last = text[:-1].rsplit("\n", 1)[-1]
    if not last.startswith("{"):
        raise ValueError(f"the last line is not a JSON document: {last[:100]!r}")
    return json.loads(last)


def check_call(validators, stem):
    with open(stem + ".args", "rb") as f:
        argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0")[:-1]]
    with open(stem + ".status", encoding="utf-8") as f:
        status = int(f.read().strip() or "0")
    with open(stem + ".out", "rb") as f:
        out = f.read().decode("utf-8", "replace")
    call = "berth " + " ".join(argv) + f" (exit {status})"
    command, rest = command_of(argv)
    helps = command == "help" or "--help" in rest or "-h" in rest
    if helps or (command is None and not ("--version" in rest or "-V" in rest)):
        # With --json, help (and what berth prints without a command) is a help document, or an
        # error document for a command that does not exist; without it, text.
        if not out.startswith("{"):
            return []
        command = "help"
    if command in ("run", "shell"):
        # --result-file: the document is in FILE, stdout is the command's alone.
        before = rest[: rest.index("--")] if "--" in rest else rest
        for i, a in enumerate(before):
            target = None
            if a == "--result-file" and i + 1 < len(before):
                target = before[i + 1]
            elif a.startswith("--result-file="):
                target = a.split("=", 1)[1]
            if target is not None:
                if not os.path.exists(target):
                    # Not written (berth said why on stderr, exit 1), or removed by the test.
                    return [] if status != 0 else [f"{call}: no result file {target}"]
                with open(target, "rb") as f:
                    out = f.read().decode("utf-8", "replace")
                break
    if not out.strip():
        # Killed (a timeout, a signal, a test that stops it half-way): nothing to check.
        if status >= 124:
            return []
        return [f"{call}: printed no JSON document"]
    try:
        doc = last_document(out) if command in ("run", "shell") else json.loads(out)
    except ValueError as e:
        return [f"{call}: stdout is not one JSON document ({e}): {out[:200]!r}"]

    problems = []
    if isinstance(doc, dict) and "error" in doc:
        schema = "error"
        if status == 0:
            problems.append(f"{call}: an error document with exit status 0")
    elif command is None:
        schema = "version"
    elif command == "help":
        schema = "help"
    elif command not in COMMANDS:
        return [f"{call}: unknown command '{command}', yet no error document"]
    else:
        schema = COMMANDS[command]
        if command == "restore" and ("--list" in rest or "-l" in rest):
            schema = "restore-list"
        if command == "trust" and "--list" in rest:
            schema = "trust-list"
        # 6: the workspace was made (or set up again) but a set-up command failed (errors.md).
        # discard TASK: an attempt refused on the way is in `failed`, and its error's status is the
        # exit status (docs/json.md).
        fork_discard = command == "discard" and isinstance(doc, dict) and "task" in doc
        if fork_discard and (status != 0) != bool(doc.get("failed")):
            problems.append(f"{call}: exit status {status} with failed {doc.get('failed')}")
        if status != 0 and command not in OWN_STATUS and not fork_discard and not (
                status == 6 and command in ("new", "setup", "restore")):
            problems.append(f"{call}: exit status {status} without an error document")
        if command in ("accept", "sync") and isinstance(doc, dict):
            # Their own status: 3 exactly when the result lists conflicts.
            if (status == 3) != bool(doc.get("conflicts")):
                problems.append(f"{call}: exit status {status} with conflicts {doc.get('conflicts')}")
        if command == "pick" and isinstance(doc, dict) and isinstance(doc.get("accepted"), dict):
            if (status == 3) != bool(doc["accepted"].get("conflicts")):
                problems.append(f"{call}: exit status {status} with conflicts "
                                f"{doc['accepted'].get('conflicts')}")
    for line in violations(validators[schema], doc):
        problems.append(f"{call}: its document does not match docs/schema/{schema}.json: {line}")

    # Under --json berth's stderr is an event stream, one event per line: a plain `berth: ...`
    # line is a hole in it. (Other lines are not berth's: a command's or a hook's own stderr.)
    if os.path.exists(stem + ".err"):
        with open(stem + ".err", "rb") as f:
            err = f.read().decode("utf-8", "replace")
        for n, line in enumerate(err.split("\n"), 1):
            if line.startswith("berth:") or line.startswith("hint:"):
                problems.append(f"{call}: stderr line {n} is not an event: {line[:200]!r}")
                continue
            if not line.startswith('{"'):
                continue
            try:
                event = json.loads(line)
            except ValueError as e:
                problems.append(f"{call}: stderr line {n} is not JSON ({e}): {line[:200]!r}")
                continue
            for v in violations(validators["event"], event):
                problems.append(
                    f"{call}: event on stderr line {n} does not match "
                    f"docs/schema/event.json: {v}"
                )
    return problems


def check_examples(validators, path):
    """The ```json examples of docs/json.md, each against the schema of the section it is in (an
    example shortened with a "..." member is left out)."""
    problems, heading, block, start = [], "", None, 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if block is None:
            if line.startswith("#"):
                heading = line
            elif line == "```json":
                block, start = [], n
            continue
        if line != "```":
            block.append(line)
            continue
        text, block = "\n".join(block), None
        if '"...":' in text:
            continue
        doc = json.loads(text)
        if isinstance(doc, dict) and "error" in doc:
            schema = "error"
        else:
            code = heading.split("`")[1] if "`" in heading else ""
            command, rest = command_of(code.split()[1:])
            schema = "version" if command is None else COMMANDS.get(command)
            if command == "restore" and "--list" in rest:
                schema = "restore-list"
            if command == "trust" and "--list" in rest:
                schema = "trust-list"
            if schema is None:
                problems.append(f"{path}:{start}: no schema for the example under {heading!r}")
                continue
        for v in violations(validators[schema], doc):
            problems.append(f"{path}:{start}: the example does not match docs/schema/{schema}.json: {v}")
    return problems


def main(argv):
    examples = len(argv) == 3 and argv[1] == "--examples"
    validators = load_validators(check_schemas=examples)
    if examples:
        problems = check_examples(validators, argv[2])
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    if len(argv) >= 4 and len(argv) % 2 == 0 and argv[1] == "--document":
        failed = False
        for name, path in zip(argv[2::2], argv[3::2]):
            text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
            for line in violations(validators[name], json.loads(text)):
                failed = True
                print(f"{path} does not match docs/schema/{name}.json: {line}", file=sys.stderr)
        return 1 if failed else 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    log = argv[1]
    stems = sorted(os.path.join(log, n[: -len(".args")]) for n in os.listdir(log) if n.endswith(".args"))
    problems = []
    for stem in stems:
        # A call still under way (or cut off before it ended) left no status: nothing to check.
        if os.path.exists(stem + ".status"):
            problems += check_call(validators, stem)
    for p in problems:
        print(f"schema: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
