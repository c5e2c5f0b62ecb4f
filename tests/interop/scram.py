"""SCRAM credentials for floe.yaml as `floe auth scram-credential` prints them, parsed (the
peer clients then check them end to end: a wrong StoredKey fails the client's proof, a wrong
ServerKey the server's signature)."""

from __future__ import annotations

import subprocess


def scram_credential(floe_bin, mechanism: str, password: str) -> dict:
    """{salt, iterations, stored-key, server-key} for `password` (read from stdin)."""
    made = subprocess.run([str(floe_bin), "auth", "scram-credential", "--mechanism", mechanism],
                          input=password + "\n", capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    lines = made.stdout.strip().splitlines()
    assert lines[0] == mechanism.lower() + ":", made.stdout
    assert password not in made.stdout
    fields = dict(line.strip().split(": ", 1) for line in lines[1:])
    fields["iterations"] = int(fields["iterations"])
    return fields
