"""Messages stay short: over every finding on the rule fixtures (`--select ALL`), at least 80 %
of the messages are at most 100 characters and none is over 160; the why goes to the help.
Standard library only."""
import json
import os
import subprocess
import unittest

PTLINT = os.environ.get("PTLINT", "build/ptlint")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


class MessageBudget(unittest.TestCase):
    def test_messages_are_short(self):
        proc = subprocess.run([PTLINT, "check", "--isolated", "--no-cache", "--exit-zero", "--select", "ALL",
                               "--output-format", "json", FIXTURES], capture_output=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode("utf-8", "replace"))
        findings = json.loads(proc.stdout)
        self.assertGreater(len(findings), 500)  # the fixtures were linted
        lengths = [len(f["message"]) for f in findings]
        short = sum(n <= 100 for n in lengths)
        longest = max(findings, key=lambda f: len(f["message"]))
        self.assertGreaterEqual(short / len(lengths), 0.8,
                                f"{short} of {len(lengths)} messages are at most 100 characters")
        self.assertLessEqual(len(longest["message"]), 160, f'{longest["code"]}: {longest["message"]}')
        # One sentence, one line: the why is not appended after a line break.
        self.assertFalse([f for f in findings if "\n" in f["message"]])


if __name__ == "__main__":
    unittest.main()
