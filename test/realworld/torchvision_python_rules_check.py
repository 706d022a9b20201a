#!/usr/bin/env python3
"""Emulates the selection of apistamp's Python rules with `ast`, and scores a
rules file against torchvision's own calls (torchvision_python_truth.py).

The Python rules are designed before the front end that applies them exists:
this script reads a rules file's `language: python` rules, selects what each
would instrument in torchvision's stripped tree, computes where each call
would go (the position form the comparer uses) and scores the result against
the 156 upstream calls, printing each miss and each extra. The rules can so
be tuned now, and the real tool's results compared with this emulation later.

What it emulates (the Python rule syntax of docs/rules.md):
 - module names: the path under the first `python.path` entry that holds the
   file, `/` to `.`, `.py` and `__init__` dropped; `modules` are dotted
   globs (`*` one component, `**` zero or more), `files`/`exclude_files`
   path globs;
 - `where`: constructor (a top-level class's own `__init__`; a class without
   one gives nothing), function (a module-level def), method (a def in a
   top-level class); never anything nested in a def, nor a def under an `if`;
 - `access: public` (default): the class or function is in the module's
   `__all__` when it has one (literal lists and tuples, `+` of them, and
   `__all__` imported from another module), else its name has no leading
   `_`; a method must also not start with `_`; `any`;
 - `name`/`exclude_names`: whole-match regexes on the class name
   (constructor) or the def's name;
 - `derived_from` (a dotted name or a list): the class's bases resolved
   through the module's imports and aliases and through in-package classes
   (GeneralizedRCNN -> FasterRCNN -> MaskRCNN), transitively; a base outside
   the package is known by its resolved dotted name only (torch's sources are
   not read: `torch.nn.Sequential` does not resolve to `torch.nn.Module`);
 - `skip_decorators`: a def (or, for constructors, the class) carrying one
   of these decorators, compared on the decorator's dotted name without its
   call arguments, as written and as resolved through imports;
 - `placement`: `after_super_init` (the constructor default) and
   `first_statement` (the default otherwise). `--super anywhere` emulates
   the proposed reading of after_super_init: after the first top-level
   `super().__init__(...)` wherever it is;
 - `skip_subclasses: true` (a proposed key): a class is not instrumented
   when one of its in-package bases, transitively, is selected by any rule
   (the base's `_log_api_usage_once(self)` logs the subclass's name);
 - the first rule that selects a definition places its call (as in
   docs/architecture.md); a definition two rules select is reported.

Usage: torchvision_python_rules_check.py [--rules FILE] [--source DIR]
       [--super leading|anywhere] [--per-rule]
Exits 1 when precision or recall is below --threshold (default 0.98), with
the excused drifts of torchvision_python.py left out of both.
"""
import argparse
import ast
import fnmatch
import pathlib
import re
import sys

import yaml

import torchvision_python_truth as truth

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_RULES = HERE.parent.parent / "rules" / "torchvision.yaml"


def dotted_match(pattern, name):
    """name matches the dotted glob: `*` within one component, `**` zero or
    more whole components."""
    def match(pats, parts):
        if not pats:
            return not parts
        if pats[0] == "**":
            return any(match(pats[1:], parts[i:]) for i in range(len(parts) + 1))
        return bool(parts) and fnmatch.fnmatchcase(parts[0], pats[0]) and match(pats[1:], parts[1:])
    return match(pattern.split("."), name.split("."))


def as_list(value):
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def decorator_name(node):
    """The dotted text of a decorator without its call arguments."""
    if isinstance(node, ast.Call):
        node = node.func
    return ast.unparse(node)


class Module:
    def __init__(self, name, relative, tree, is_package):
        self.name, self.relative, self.tree = name, relative, tree
        self.is_package = is_package
        self.classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        self.functions = {n.name: n for n in tree.body
                          if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.imports = {}
        package = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:
                        first = alias.name.split(".")[0]
                        self.imports.setdefault(first, first)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module
                for alias in node.names:
                    if alias.name != "*":
                        self.imports[alias.asname or alias.name] = source + "." + alias.name
        self.all_node = None
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AugAssign) else [])
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                self.all_node = self.all_node or []
                self.all_node.append(node)


class Index:
    """Every module of the tree, and name resolution across them."""

    def __init__(self, root, path_entries, sources):
        """sources: {relative path: bytes} (the stripped tree)."""
        self.modules = {}
        self.by_file = {}
        for relative, data in sorted(sources.items()):
            for entry in path_entries:
                prefix = "" if entry in (".", "") else entry.rstrip("/") + "/"
                if relative.startswith(prefix):
                    name = relative[len(prefix):-3].replace("/", ".")
                    is_package = name.endswith(".__init__") or name == "__init__"
                    if is_package:
                        name = name.rpartition(".")[0]
                    module = Module(name, relative, ast.parse(data), is_package)
                    self.modules[name] = module
                    self.by_file[relative] = module
                    break
        self._all = {}

    def module_all(self, module, seen=()):
        """The module's __all__ as a set, or None when it has none."""
        if module.all_node is None:
            return None
        if module.name in self._all:
            return self._all[module.name]
        names = set()
        for node in module.all_node:
            if isinstance(node, ast.Assign):
                names = set()
            names |= self._eval_all(module, node.value, seen + (module.name,))
        self._all[module.name] = names
        return names

    def _eval_all(self, module, node, seen):
        if isinstance(node, (ast.List, ast.Tuple)):
            return {ast.literal_eval(e) for e in node.elts}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._eval_all(module, node.left, seen) | self._eval_all(module, node.right, seen)
        if isinstance(node, ast.Name) and node.id in module.imports:
            target = module.imports[node.id]
            owner, _, attribute = target.rpartition(".")
            if attribute == "__all__" and owner in self.modules and owner not in seen:
                return self.module_all(self.modules[owner], seen) or set()
        raise ValueError("%s: an __all__ this emulation cannot evaluate: %s"
                         % (module.relative, ast.unparse(node)))

    def canonical(self, dotted, seen=None):
        """dotted resolved to where it is defined: an in-package
        `module.Class`, or the resolved external name."""
        seen = seen or set()
        if dotted in seen:
            return dotted
        seen.add(dotted)
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            owner = ".".join(parts[:cut])
            if owner in self.modules:
                module, rest = self.modules[owner], parts[cut:]
                if not rest:
                    return owner
                if rest[0] in module.classes or rest[0] in module.functions:
                    return ".".join([owner] + rest)
                if rest[0] in module.imports:
                    return self.canonical(".".join([module.imports[rest[0]]] + rest[1:]), seen)
                return dotted
        return dotted

    def resolve_in(self, module, text):
        """A name as written in module, resolved."""
        first, _, rest = text.partition(".")
        if first in module.classes or first in module.functions:
            return module.name + "." + text
        if first in module.imports:
            return self.canonical(module.imports[first] + ("." + rest if rest else ""))
        return text

    def class_node(self, dotted):
        owner, _, name = dotted.rpartition(".")
        module = self.modules.get(owner)
        return (module, module.classes[name]) if module and name in module.classes else (None, None)

    def ancestors(self, module, node, seen=None):
        """Every base of a class, resolved, transitively through in-package
        classes."""
        seen = seen if seen is not None else set()
        found = []
        for base in node.bases:
            name = self.resolve_in(module, ast.unparse(base))
            if name in seen:
                continue
            seen.add(name)
            found.append(name)
            owner, parent = self.class_node(name)
            if parent is not None:
                found += self.ancestors(owner, parent, seen)
        return found


def stripped_sources(source):
    """{relative: bytes} of the stripped tree (made in memory) and the
    upstream sites."""
    sites = truth.find_sites(source)
    by_file = {}
    for site in sites:
        by_file.setdefault(site.file, []).append(site)
    sources = {}
    for relative in truth.python_files(source):
        data = (pathlib.Path(source) / relative).read_bytes()
        if relative in by_file:
            data = truth.strip_bytes(relative, data, by_file[relative])
        sources[relative] = data
    return sources, sites


def form_of(function, placement, super_mode):
    body = function.body
    start = 1 if body and truth.is_docstring(body[0]) else 0
    if placement == "after_super_init":
        if len(body) > start and truth.is_super_init(body[start]):
            return "after_super"
        if super_mode == "anywhere":
            for index in range(start, len(body)):
                if truth.is_super_init(body[index]):
                    return "other@%d" % (index + 1)
    return "first"


def call_argument(rule, where, name):
    template = rule.get("call") or ("_log_api_usage_once({name})" if where == "function"
                                    else "_log_api_usage_once(self)")
    inner = template[template.index("(") + 1:template.rindex(")")]
    return inner.replace("{name}", name).strip()


class Emulator:
    def __init__(self, rules_file, source, super_mode):
        config = yaml.safe_load(pathlib.Path(rules_file).read_text())
        self.path_entries = as_list((config.get("python") or {}).get("path")) or ["."]
        self.rules = [r for r in config.get("rules", []) if r.get("language") == "python"]
        self.sources, self.upstream = stripped_sources(source)
        self.index = Index(source, self.path_entries, self.sources)
        self.super_mode = super_mode

    def public(self, module, name):
        names = self.index.module_all(module)
        return name in names if names is not None else not name.startswith("_")

    def skipped_by_decorator(self, module, node, rule):
        wanted = set(as_list(rule.get("skip_decorators")))
        for decorator in node.decorator_list:
            text = decorator_name(decorator)
            if text in wanted or self.index.resolve_in(module, text) in wanted:
                return True
        return False

    def candidates(self, rule):
        """[(module, qualified name, def node, name, class node or None)]."""
        where = rule.get("where", "function")
        modules = as_list(rule.get("modules"))
        files = as_list(rule.get("files"))
        exclude_files = as_list(rule.get("exclude_files"))
        for module in self.index.modules.values():
            if modules and not any(dotted_match(p, module.name) for p in modules):
                continue
            if files and not any(fnmatch.fnmatchcase(module.relative, f) for f in files):
                continue
            if any(fnmatch.fnmatchcase(module.relative, f) for f in exclude_files):
                continue
            if where == "function":
                for name, node in module.functions.items():
                    yield module, name, node, name, None
            else:
                for class_name, klass in module.classes.items():
                    for node in klass.body:
                        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            continue
                        if where == "constructor" and node.name == "__init__":
                            yield module, class_name + ".__init__", node, class_name, klass
                        elif where == "method" and node.name != "__init__":
                            yield module, class_name + "." + node.name, node, node.name, klass

    def selects(self, rule, module, node, name, klass):
        """None if the rule selects the definition, else why not."""
        where = rule.get("where", "function")
        access = rule.get("access", "public")
        if access == "public":
            if klass is not None and not self.public(module, klass.name):
                return "not public"
            if where == "function" and not self.public(module, name):
                return "not public"
            if where == "method" and name.startswith("_"):
                return "not public"
        if as_list(rule.get("name")) and not any(
                re.fullmatch(p, name) for p in as_list(rule.get("name"))):
            return "name"
        if any(re.fullmatch(p, name) for p in as_list(rule.get("exclude_names"))):
            return "excluded name"
        if rule.get("derived_from"):
            ancestors = set(self.index.ancestors(module, klass)) if klass is not None else set()
            if not ancestors & set(as_list(rule["derived_from"])):
                return "not derived"
        if self.skipped_by_decorator(module, node, rule) or (
                klass is not None and where == "constructor"
                and self.skipped_by_decorator(module, klass, rule)):
            return "decorator"
        return None

    def run(self):
        """({key: (rule id, site)}, overlaps [(qualified, first rule, other)],
        {rule id: selected count})."""
        chosen, overlaps, counts = {}, [], {}
        deferred = []
        for rule in self.rules:
            where = rule.get("where", "function")
            placement = rule.get("placement") or (
                "after_super_init" if where == "constructor" else "first_statement")
            counts[rule["id"]] = 0
            for module, qualified, node, name, klass in self.candidates(rule):
                if self.selects(rule, module, node, name, klass) is not None:
                    continue
                if rule.get("skip_subclasses") and klass is not None:
                    deferred.append((rule, module, qualified, klass))
                place = (module.relative, qualified)
                if place in chosen:
                    overlaps.append((qualified, chosen[place][0], rule["id"]))
                    continue
                counts[rule["id"]] += 1
                site = truth.Site(
                    file=module.relative, definition=qualified,
                    argument=call_argument(rule, where, name),
                    form=form_of(node, placement, self.super_mode),
                    guarded=bool(rule.get("guard")), line=node.lineno)
                chosen[place] = (rule["id"], site)
        # skip_subclasses (a proposed key): a class one of whose in-package
        # bases is selected needs no call of its own, since the base's
        # `_log_api_usage_once(self)` logs the runtime class.
        selected_classes = {"%s.%s" % (self.index.by_file[f].name, q.split(".")[0])
                            for f, q in chosen if q.endswith(".__init__")}
        for rule, module, qualified, klass in deferred:
            if set(self.index.ancestors(module, klass)) & selected_classes:
                place = (module.relative, qualified)
                if place in chosen and chosen[place][0] == rule["id"]:
                    del chosen[place]
                    counts[rule["id"]] -= 1
        return chosen, overlaps, counts


def imports_helper(module):
    return "_log_api_usage_once" in module.imports or "_log_api_usage_once" in module.functions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default=str(DEFAULT_RULES))
    parser.add_argument("--source", default=truth.DEFAULT_SOURCE)
    parser.add_argument("--super", dest="super_mode", choices=("leading", "anywhere"),
                        default="anywhere",
                        help="after_super_init: after a leading super().__init__ only "
                             "(the written syntax), or after the first one anywhere "
                             "(the proposal)")
    parser.add_argument("--threshold", type=float, default=0.98)
    parser.add_argument("--no-excuses", action="store_true",
                        help="count the documented drifts too")
    args = parser.parse_args()
    if not (pathlib.Path(args.source) / "torchvision/utils.py").exists():
        print("no torchvision source at %s; run scripts/fetch-torchvision.sh" % args.source)
        return 2
    from torchvision_python import EXCUSED
    emulator = Emulator(args.rules, args.source, args.super_mode)
    chosen, overlaps, counts = emulator.run()
    upstream = {s.key(): s for s in emulator.upstream}
    ours = {site.key(): (rule, site) for rule, site in chosen.values()}
    excused = {} if args.no_excuses else {e[:5]: e[6] for e in EXCUSED}
    matched = set(upstream) & set(ours)
    missed = sorted(set(upstream) - matched)
    extra = sorted(set(ours) - matched)
    upstream_counted = len(upstream) - sum(1 for k in missed if k in excused)
    ours_counted = len(ours) - sum(1 for k in extra if k in excused)
    recall = len(matched) / upstream_counted if upstream_counted else 0.0
    precision = len(matched) / ours_counted if ours_counted else 0.0

    truth_by_rule = {}
    for key in matched:
        truth_by_rule[ours[key][0]] = truth_by_rule.get(ours[key][0], 0) + 1
    print("rules: %s (%d Python rules; after_super_init: %s)"
          % (args.rules, len(emulator.rules), args.super_mode))
    for rule in emulator.rules:
        print("  %-28s selects %3d, of them upstream calls %3d"
              % (rule["id"], counts[rule["id"]], truth_by_rule.get(rule["id"], 0)))
    print("upstream %d, emulated %d, matching %d" % (len(upstream), len(ours), len(matched)))
    print("recall %.4f, precision %.4f (documented drifts excused: %d missed, %d extra)"
          % (recall, precision, sum(1 for k in missed if k in excused),
             sum(1 for k in extra if k in excused)))
    # A miss and an extra on the same definition are one misplacement.
    extra_places = {(k[0], k[1]): k for k in extra}
    for key in missed:
        site = upstream[key]
        other = extra_places.get((key[0], key[1]))
        if other:
            print("  misplaced: %s: emulated %s(%s) [%s%s] (rule %s)" % (
                site.describe(), truth.HELPER, other[2], other[3],
                ", guarded" if other[4] else "", ours[other][0]))
        else:
            print("  missed%s: %s" % (" (excused: %s)" % excused[key] if key in excused else "",
                                      site.describe()))
    for key in extra:
        if (key[0], key[1]) in {(k[0], k[1]) for k in missed}:
            continue
        rule, site = ours[key]
        print("  extra%s: %s (rule %s)" % (" (excused: %s)" % excused[key] if key in excused
                                           else "", site.describe(), rule))
    for qualified, first, other in overlaps:
        print("  selected by two rules: %s (%s, then %s)" % (qualified, first, other))
    no_import = sorted({site.file for _, site in chosen.values()
                        if not imports_helper(emulator.index.by_file[site.file])})
    for relative in no_import:
        print("  the fix must add the import to %s" % relative)
    no_torch = sorted({site.file for _, site in chosen.values() if site.guarded
                       and "torch" not in emulator.index.by_file[site.file].imports})
    for relative in no_torch:
        print("  a guard needs `torch`, which %s does not import" % relative)
    return 0 if recall >= args.threshold and precision >= args.threshold else 1


if __name__ == "__main__":
    sys.exit(main())
