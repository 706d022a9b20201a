# Tests of the bundled rules (rules/), set up as a rule author's would be
# (docs/rule-authoring.md), with the shipped lit configuration.
config.test_source_root = os.path.dirname(__file__)
config.apistamp_rules_dir = os.path.join(config.test_source_root, "..", "..", "..", "rules")
lit_config.load_config(config, os.path.join(config.test_source_root, "..", "..", "..",
                                            "tool", "lit", "apistamp.cfg.py"))
