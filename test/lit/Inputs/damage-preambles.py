#!/usr/bin/env python3
"""Damages every entry of a preamble store (test/lit/preamble-store.test).

damage-preambles.py MODE DIR, MODE one of:
  truncate  each PCH cut to half its size
  flip      one byte in the middle of each PCH inverted
  swap      each entry names the other entry's PCH (hash and size updated,
            the file copied under the name the entry now gives)
  garbage   each entry replaced by text that is not JSON
  offsets   each entry's comment and macro-use offsets moved by one byte
"""
import json
import pathlib
import shutil
import sys

mode, store = sys.argv[1], pathlib.Path(sys.argv[2])
entries = sorted(store.glob("*.json"))
pchs = sorted(store.glob("*.pch"))
if not entries:
    sys.exit("no entries in %s" % store)


def pch_of(entry):
    data = json.loads(entry.read_text())
    return store / ("%s-%s.pch" % (entry.stem, data["pchHash"]))


if mode == "truncate":
    for pch in pchs:
        data = pch.read_bytes()
        pch.write_bytes(data[: len(data) // 2])
elif mode == "flip":
    for pch in pchs:
        data = bytearray(pch.read_bytes())
        data[len(data) // 2] ^= 0xFF
        pch.write_bytes(bytes(data))
elif mode == "swap":
    if len(entries) != 2:
        sys.exit("swap needs two entries")
    loaded = [json.loads(e.read_text()) for e in entries]
    files = [pch_of(e) for e in entries]
    for i, entry in enumerate(entries):
        other = loaded[1 - i]
        data = dict(loaded[i], pchHash=other["pchHash"], pchSize=other["pchSize"])
        shutil.copyfile(files[1 - i], store / ("%s-%s.pch" % (entry.stem, other["pchHash"])))
        entry.write_text(json.dumps(data))
elif mode == "garbage":
    for entry in entries:
        entry.write_text("{not json")
elif mode == "offsets":
    for entry in entries:
        data = json.loads(entry.read_text())
        if not data["comments"] and not data["macroUses"]:
            sys.exit("%s records no comment or macro use" % entry)
        for key in ("comments", "macroUses"):
            data[key] = [[i, o + 1] for i, o in data[key]]
        entry.write_text(json.dumps(data))
else:
    sys.exit("unknown mode " + mode)
