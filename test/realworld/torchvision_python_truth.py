#!/usr/bin/env python3
"""torchvision's own Python logging calls, found with Python's `ast`: the truth
the Python half of apistamp is measured against.

torchvision 0.14.1 places 156 `_log_api_usage_once(...)` calls by hand in its
Python package (models 31, ops 35, transforms 70, io 14, utils 5, datasets 1;
the project notes, CONTEXT.md 3b). For each call this module records where
it is in terms a rule can reproduce: the file (relative to the vision root), the enclosing
definition's qualified name (`ResNet.__init__`, `nms`), the argument's source
text (`self`, `nms`), the statement's position form and whether it sits in
torchvision's TorchScript guard

    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        _log_api_usage_once(fn)

(the `if` whose body is only the call). Position forms: `first` (the first
statement after the docstring), `after_super` (right after a leading
`super().__init__(...)`), `other@N` (anywhere else; N is the index of the
statement, or of its guard, in the enclosing function's body, docstring
included; `other@a.b.c` when it is nested in another block).

The same tuple (file, definition, argument, form, guard) is computed for a
tree `apistamp fix` produced, so the comparer (torchvision_python.py) works on
tuples, not on line numbers. `strip_tree` makes the stripped copy the fix
starts from. The drift list of CONTEXT.md 3b (where torchvision departs from
its own written policy) is checked against the tree.

CLI: `torchvision_python_truth.py [--source DIR] [--list] [--json FILE]`
prints the counts per package and the drift checks; exits 1 when the counts
are not 0.14.1's.
"""
import argparse
import ast
import json
import pathlib
import sys
from dataclasses import asdict, dataclass

DEFAULT_SOURCE = "/var/cache/apistamp/pytorch-vision/vision-0.14.1"
HELPER = "_log_api_usage_once"
GUARD_TEST = "not torch.jit.is_scripting() and (not torch.jit.is_tracing())"
GUARD_LINE = "if not torch.jit.is_scripting() and not torch.jit.is_tracing():"
EXPECTED = {"models": 31, "ops": 35, "transforms": 70, "io": 14, "utils": 5,
            "datasets": 1}


@dataclass(frozen=True)
class Site:
    """One call. `key()` is what the comparer matches on; the line numbers
    (1-based, of the call and of its guard) are for the stripper and for
    messages."""
    file: str
    definition: str
    argument: str
    form: str
    guarded: bool
    line: int
    guard_line: int = 0
    end_line: int = 0
    alone: bool = False  # the body's only statement besides a docstring

    def key(self):
        return (self.file, self.definition, self.argument, self.form, self.guarded)

    @property
    def package(self):
        """models, ops, ...: the first component under torchvision/, or the
        module name for a top-level module (utils.py: utils)."""
        parts = pathlib.PurePosixPath(self.file).parts
        return parts[1] if len(parts) > 2 else pathlib.PurePosixPath(parts[1]).stem

    def describe(self):
        return "%s:%d %s(%s) in %s [%s%s]" % (
            self.file, self.line, HELPER, self.argument, self.definition, self.form,
            ", guarded" if self.guarded else "")


def is_helper_call(node):
    """`_log_api_usage_once(x)` by its bare name (the form torchvision
    imports; `torch._C._log_api_usage_once` inside the helper is not one)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == HELPER)


def is_docstring(statement):
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def is_super_init(statement):
    """`super().__init__(...)` or `super(C, self).__init__(...)`."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    return (isinstance(func, ast.Attribute) and func.attr == "__init__"
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super")


def is_guard(node):
    return isinstance(node, ast.If) and ast.unparse(node.test) == GUARD_TEST


def position_form(function, path):
    """The form of the statement reached from function's body by path, a list
    of (field, index) steps; the first step is ("body", i)."""
    body = function.body
    start = 1 if body and is_docstring(body[0]) else 0
    if len(path) == 1:
        index = path[0][1]
        if index == start:
            return "first"
        if index == start + 1 and is_super_init(body[start]):
            return "after_super"
        return "other@%d" % index
    return "other@" + ".".join("%s%d" % (field if field != "body" else "", index)
                               for field, index in path)


class _Finder(ast.NodeVisitor):
    """Walks one module, keeping the stack of enclosing definitions and the
    path of (field, index) steps from the innermost function's body."""

    def __init__(self, relative):
        self.relative = relative
        self.sites = []
        self.scopes = []  # (kind, name, node)

    def qualname(self):
        parts = []
        for i, (kind, name, _) in enumerate(self.scopes):
            parts.append(name)
            if kind == "function" and i + 1 < len(self.scopes):
                parts.append("<locals>")
        return ".".join(parts)

    def visit_ClassDef(self, node):
        self.scopes.append(("class", node.name, node))
        self.generic_visit(node)
        self.scopes.pop()

    def visit_FunctionDef(self, node):
        self.scopes.append(("function", node.name, node))
        self.walk_block(node, node, [])
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def walk_block(self, function, node, path):
        """Visits every statement list of node, tracking the path."""
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for index, child in enumerate(block):
                self.statement(function, child, path + [(field, index)])

    def statement(self, function, node, path):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.visit(node)
            return
        if isinstance(node, ast.Expr) and is_helper_call(node.value):
            self.record(function, node, None, path)
            return
        if (is_guard(node) and len(node.body) == 1 and not node.orelse
                and isinstance(node.body[0], ast.Expr) and is_helper_call(node.body[0].value)):
            self.record(function, node.body[0], node, path)
            return
        # Calls anywhere else in expressions (none in 0.14.1) are found too.
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) or isinstance(child, ast.excepthandler):
                continue
            for sub in ast.walk(child):
                if is_helper_call(sub):
                    raise ValueError("%s:%d: %s called inside an expression"
                                     % (self.relative, sub.lineno, HELPER))
                if isinstance(sub, ast.Lambda):
                    break
        self.walk_block(function, node, path)

    def record(self, function, expr, guard, path):
        call = expr.value
        if len(call.args) != 1 or call.keywords:
            raise ValueError("%s:%d: %s with other than one argument"
                             % (self.relative, expr.lineno, HELPER))
        self.sites.append(Site(
            file=self.relative, definition=self.qualname(),
            argument=ast.unparse(call.args[0]), form=position_form(function, path),
            guarded=guard is not None, line=expr.lineno,
            guard_line=guard.lineno if guard is not None else 0,
            end_line=expr.end_lineno,
            alone=len(path) == 1 and all(
                is_docstring(s) for i, s in enumerate(function.body) if i != path[0][1])))


def definitions(tree):
    """{qualified name: FunctionDef} of a module, named as _Finder names
    them (`C.f`, `f.<locals>.g`)."""
    found = {}

    def walk(nodes, prefix, in_function):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + node.name
                if not isinstance(node, ast.ClassDef):
                    found.setdefault(name, node)
                    walk(ast.iter_child_nodes(node), name + ".<locals>.", True)
                else:
                    walk(ast.iter_child_nodes(node), name + ".", in_function)
            elif isinstance(node, (ast.stmt, ast.excepthandler, ast.match_case)):
                walk(ast.iter_child_nodes(node), prefix, in_function)
    walk(tree.body, "", False)
    return found


def python_files(root):
    """root/torchvision/**/*.py, sorted, as paths relative to root."""
    return sorted(p.relative_to(root).as_posix()
                  for p in (pathlib.Path(root) / "torchvision").rglob("*.py"))


def sites_in_file(root, relative, source=None):
    """The calls of one file (source: its bytes, read if None). A call at
    module level (outside any def) raises: none exist and a rule cannot make
    one."""
    if source is None:
        source = (pathlib.Path(root) / relative).read_bytes()
    tree = ast.parse(source, filename=relative)
    finder = _Finder(relative)

    def module_level(nodes):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                finder.visit(node)
            elif is_helper_call(node):
                raise ValueError("%s:%d: %s at module level" % (relative, node.lineno, HELPER))
            else:
                module_level(ast.iter_child_nodes(node))
    module_level(tree.body)
    return finder.sites


def find_sites(root):
    """Every call under root/torchvision, in file then line order."""
    sites = []
    for relative in python_files(root):
        sites.extend(sites_in_file(root, relative))
    return sorted(sites, key=lambda s: (s.file, s.line))


def counts_by_package(sites):
    counts = {}
    for site in sites:
        counts[site.package] = counts.get(site.package, 0) + 1
    return counts


# --- the drift list of CONTEXT.md 3b --------------------------------------

def _module_tree(root, relative):
    return ast.parse((pathlib.Path(root) / relative).read_bytes())


def _module_all(tree):
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "__all__"):
            try:
                return list(ast.literal_eval(node.value))
            except ValueError:  # `a_all + b_all` of imported lists: not needed here
                return []
    return None


def _top_level(tree, name):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return node
    return None


def drift_checks(root, sites):
    """[(claim, holds, detail)] for each drift CONTEXT.md 3b lists."""
    by_file = {}
    for site in sites:
        by_file.setdefault(site.file, []).append(site)
    checks = []

    # utils.flow_to_image: public (in __all__) and never logs.
    utils = _module_tree(root, "torchvision/utils.py")
    logs = [s.definition for s in by_file.get("torchvision/utils.py", [])]
    public = "flow_to_image" in (_module_all(utils) or [])
    checks.append(("utils.flow_to_image is public and never logs",
                   public and "flow_to_image" not in logs and _top_level(utils, "flow_to_image") is not None,
                   "utils.py logs in: " + ", ".join(logs)))

    # v1 AutoAugment classes: public nn.Modules whose __init__ does not log.
    relative = "torchvision/transforms/autoaugment.py"
    tree = _module_tree(root, relative)
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)
               and n.name in (_module_all(tree) or [])
               and any(ast.unparse(b) in ("torch.nn.Module", "nn.Module") for b in n.bases)]
    logging = {s.definition.split(".")[0] for s in by_file.get(relative, [])}
    checks.append(("the v1 AutoAugment classes never log",
                   bool(classes) and not (set(classes) & logging),
                   "public nn.Module classes in %s: %s; logging: %s"
                   % (relative, ", ".join(classes), ", ".join(sorted(logging)) or "none")))

    # SSDLiteFeatureExtractorMobileNet: a helper (not in __all__) that logs.
    relative = "torchvision/models/detection/ssdlite.py"
    tree = _module_tree(root, relative)
    name = "SSDLiteFeatureExtractorMobileNet"
    in_all = name in (_module_all(tree) or [])
    logs = any(s.definition == name + ".__init__" for s in by_file.get(relative, []))
    checks.append(("SSDLiteFeatureExtractorMobileNet (a helper submodule) logs",
                   logs and not in_all and _top_level(tree, name) is not None,
                   "in __all__: %s; logs: %s" % (in_all, logs)))

    # initLevelMapper (ops/poolers.py): public by name (no __all__ there) and never logs.
    relative = "torchvision/ops/poolers.py"
    tree = _module_tree(root, relative)
    all_names = _module_all(tree)
    name = "initLevelMapper"
    public = (name in all_names) if all_names is not None else not name.startswith("_")
    logs = any(s.definition.split(".")[0] == name for s in by_file.get(relative, []))
    checks.append(("ops.poolers.initLevelMapper is public and never logs",
                   public and not logs and _top_level(tree, name) is not None,
                   "__all__ of poolers.py: %s; public: %s; logs: %s"
                   % (all_names, public, logs)))
    return checks


# --- the stripper ----------------------------------------------------------

def strip_tree(source, target, sites=None):
    """Copies source/torchvision/**/*.py to target (same relative layout) with
    every call's lines deleted, and its guard's line for a guarded call.
    Imports are kept. A call that is its body's only statement (besides a
    docstring) becomes `pass`: 0.14.1 has two, the `__init__` of ToTensor and
    of PILToTensor, which exist only to log. Returns the sites removed."""
    source, target = pathlib.Path(source), pathlib.Path(target)
    if sites is None:
        sites = find_sites(source)
    by_file = {}
    for site in sites:
        by_file.setdefault(site.file, []).append(site)
    for relative in python_files(source):
        data = (source / relative).read_bytes()
        out = target / relative
        out.parent.mkdir(parents=True, exist_ok=True)
        if relative in by_file:
            data = strip_bytes(relative, data, by_file[relative])
        out.write_bytes(data)
    return sites


def strip_bytes(relative, data, sites, check=True, passes=True):
    """data with the lines of sites (and their guards) deleted, or replaced by
    `pass` for a site alone in its body (passes=True). check: the result must
    parse, hold no call, and leave no body only a docstring."""
    lines = data.splitlines(keepends=True)
    delete, replace = set(), {}
    for site in sites:
        first = site.guard_line or site.line
        delete.update(range(first, site.end_line + 1))
        if site.alone and passes:
            line = lines[first - 1]
            indent = line[:len(line) - len(line.lstrip())]
            ending = line[len(line.rstrip(b"\r\n")):]
            replace[first] = indent + b"pass" + ending
    kept = b"".join(replace.get(number, b"") if number in delete else line
                    for number, line in enumerate(lines, 1))
    if not check:
        return kept
    # An emptied block is a syntax error; a body left with only its
    # docstring would be a changed meaning: refuse both.
    try:
        tree = ast.parse(kept, filename=relative)
    except SyntaxError as error:
        raise ValueError("%s: stripping leaves invalid Python: %s" % (relative, error))
    functions = definitions(tree)
    for site in sites:
        node = functions.get(site.definition)
        if node is None:
            raise ValueError("%s: %s not found once stripped" % (relative, site.definition))
        if all(is_docstring(statement) for statement in node.body):
            raise ValueError("%s:%d: %s's body is empty but for a docstring once stripped"
                             % (relative, node.lineno, site.definition))
    if sites_in_file(None, relative, kept):
        raise ValueError("%s: calls left after stripping" % relative)
    return kept


# --- the comparer -----------------------------------------------------------

def compare_trees(original, fixed, excused=()):
    """Matches the calls of fixed/torchvision against original's on the key
    (file, definition, argument, form, guard). excused: keys of upstream calls
    a rule set is allowed to miss, or of extra calls it may make (documented
    drifts). Returns a dict: upstream, ours, matched (keys), missed, extra
    (sites), excused_missed, excused_extra (sites), precision, recall (over
    the calls not excused), and the per-file byte comparison (see
    compare_bytes)."""
    upstream = find_sites(original)
    ours = find_sites(fixed)
    upstream_keys = {s.key(): s for s in upstream}
    our_keys = {s.key(): s for s in ours}
    if len(upstream_keys) != len(upstream):
        raise ValueError("two upstream calls share a key")
    duplicates = len(ours) - len(our_keys)
    excused = set(excused)
    matched = set(upstream_keys) & set(our_keys)
    missed = [upstream_keys[k] for k in sorted(set(upstream_keys) - matched)]
    extra = [our_keys[k] for k in sorted(set(our_keys) - matched)]
    result = {
        "upstream": upstream, "ours": ours, "matched": matched,
        "duplicates": duplicates,
        "missed": [s for s in missed if s.key() not in excused],
        "extra": [s for s in extra if s.key() not in excused],
        "excused_missed": [s for s in missed if s.key() in excused],
        "excused_extra": [s for s in extra if s.key() in excused],
    }
    upstream_counted = len(upstream) - len(result["excused_missed"])
    ours_counted = len(ours) - len(result["excused_extra"])
    result["recall"] = len(matched) / upstream_counted if upstream_counted else 0.0
    result["precision"] = len(matched) / ours_counted if ours_counted else 0.0
    result["files"] = compare_bytes(original, fixed, upstream, ours)
    return result


def compare_bytes(original, fixed, upstream, ours):
    """Per file of either tree: "identical", "import added" (the fixed file
    less its calls is the stripped one plus the helper's import: expected
    only where upstream has no call), "calls differ" (the fixed file
    with its calls and guards deleted is the stripped file: only the call
    lines differ from upstream, in place or text, or a `pass` the stripper
    left; the diff against upstream), "differs beyond calls" (the diff of
    the stripped file and the fixed file less its calls), "missing" or
    "added"."""
    original, fixed = pathlib.Path(original), pathlib.Path(fixed)
    ups, our = {}, {}
    for site in upstream:
        ups.setdefault(site.file, []).append(site)
    for site in ours:
        our.setdefault(site.file, []).append(site)
    left, right = set(python_files(original)), set(python_files(fixed))
    files = {}
    for relative in sorted(left | right):
        if relative not in right:
            files[relative] = ("missing", "")
            continue
        if relative not in left:
            files[relative] = ("added", "")
            continue
        a, b = (original / relative).read_bytes(), (fixed / relative).read_bytes()
        if a == b:
            files[relative] = ("identical", "")
            continue
        # The reference is the stripped tree the fix started from: the fix
        # may add calls (and drop a `pass` the stripper left), nothing else.
        reference = strip_bytes(relative, a, ups.get(relative, []), check=False)
        ours_stripped = strip_bytes(relative, b, our.get(relative, []), check=False)
        no_passes = strip_bytes(relative, a, ups.get(relative, []), check=False, passes=False)
        if ours_stripped in (reference, no_passes):
            files[relative] = ("calls differ", _diff(a, b, relative))
        elif only_import_added(reference, ours_stripped):
            files[relative] = ("import added", _diff(reference, ours_stripped, relative))
        else:
            files[relative] = ("differs beyond calls", _diff(reference, ours_stripped, relative))
    return files


def only_import_added(before, after):
    """after is before with the helper's import added: each added line is an
    import naming the helper, each removed line an import (one the fix
    merged the name into: `from ..utils import _make_ntuple` ->
    `from ..utils import _log_api_usage_once, _make_ntuple`)."""
    import difflib
    old, new = before.splitlines(), after.splitlines()
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for line in new[j1:j2]:
            if HELPER.encode() not in line or b"import" not in line:
                return False
            added += 1
        for line in old[i1:i2]:
            if not line.lstrip().startswith((b"from ", b"import ")):
                return False
            removed += 1
    return added > 0 and removed <= added


def _diff(a, b, relative):
    import difflib
    return "".join(difflib.unified_diff(
        a.decode("utf-8", "replace").splitlines(keepends=True),
        b.decode("utf-8", "replace").splitlines(keepends=True),
        "original/" + relative, "fixed/" + relative, n=1))


def print_comparison(result, out=sys.stdout, diffs=True):
    """The figures, each miss and extra, and the file summary."""
    write = out.write
    write("upstream calls: %d; in the fixed tree: %d; matching: %d\n"
          % (len(result["upstream"]), len(result["ours"]), len(result["matched"])))
    write("recall %.4f, precision %.4f (excused: %d missed, %d extra)\n"
          % (result["recall"], result["precision"], len(result["excused_missed"]),
             len(result["excused_extra"])))
    if result["duplicates"]:
        write("  %d calls in the fixed tree share a key with another\n" % result["duplicates"])
    for site in result["missed"]:
        write("  missed: %s\n" % site.describe())
    for site in result["extra"]:
        write("  extra: %s\n" % site.describe())
    for site in result["excused_missed"]:
        write("  missed (excused): %s\n" % site.describe())
    for site in result["excused_extra"]:
        write("  extra (excused): %s\n" % site.describe())
    summary = {}
    for relative, (status, _) in result["files"].items():
        summary.setdefault(status, []).append(relative)
    write("files: " + ", ".join("%s %d" % (k, len(v)) for k, v in sorted(summary.items())) + "\n")
    for status in ("missing", "added", "differs beyond calls", "import added", "calls differ"):
        for relative in summary.get(status, []):
            write("  %s: %s\n" % (status, relative))
            if diffs and status in ("differs beyond calls", "import added"):
                write("".join("    " + line for line in
                              result["files"][relative][1].splitlines(keepends=True)[:40]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=DEFAULT_SOURCE,
                        help="the vision source root (default: %(default)s)")
    parser.add_argument("--list", action="store_true", help="print every call")
    parser.add_argument("--json", help="write the sites to this file")
    parser.add_argument("--strip", metavar="DIR",
                        help="copy torchvision/**/*.py to DIR with every call deleted")
    parser.add_argument("--compare", metavar="FIXED",
                        help="compare FIXED/torchvision's calls with the source's")
    args = parser.parse_args()
    root = pathlib.Path(args.source)
    if not (root / "torchvision/utils.py").exists():
        print("no torchvision source at %s; run scripts/fetch-torchvision.sh" % root)
        return 2
    if args.strip:
        if pathlib.Path(args.strip).exists():
            print("%s exists: give a new directory" % args.strip)
            return 2
        removed = strip_tree(root, args.strip)
        print("%d calls deleted; %s" % (len(removed), args.strip))
        return 0
    if args.compare:
        result = compare_trees(root, args.compare)
        print_comparison(result)
        return 0 if not result["missed"] and not result["extra"] else 1
    sites = find_sites(root)
    if args.list:
        for site in sites:
            print(site.describe())
    counts = counts_by_package(sites)
    forms = {}
    for site in sites:
        kind = site.form.split("@")[0] + (" guarded" if site.guarded else "")
        forms[kind] = forms.get(kind, 0) + 1
    print("calls: %d in %d files" % (len(sites), len({s.file for s in sites})))
    print("by package: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    print("by form: " + ", ".join("%s %d" % kv for kv in sorted(forms.items())))
    print("arguments: self %d, a function's own name %d, other %d" % (
        sum(s.argument == "self" for s in sites),
        sum(s.argument == s.definition.split(".")[-1] for s in sites),
        sum(s.argument not in ("self", s.definition.split(".")[-1]) for s in sites)))
    odd = [s for s in sites if s.form.startswith("other")
           or s.argument not in ("self", s.definition.split(".")[-1])]
    for site in odd:
        print("  not in a usual form: " + site.describe())
    print("drift (CONTEXT.md 3b):")
    ok = True
    for claim, holds, detail in drift_checks(root, sites):
        print("  %s %s (%s)" % ("holds:" if holds else "DOES NOT HOLD:", claim, detail))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps([asdict(s) for s in sites], indent=1))
    if counts != EXPECTED:
        print("expected 0.14.1's counts %s" % EXPECTED)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
