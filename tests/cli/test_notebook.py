"""`ptlint check` on Jupyter notebooks: walking, output per cell, malformed notebooks, the
cache, and `--fix`/`--diff` writing back only the changed cells' sources. The notebooks are
written out by hand in the styles Jupyter, VS Code and Colab save."""
import json
import os
import unittest

from test_cli import Workdir

# Jupyter (nbformat's writer): indent 1, sorted keys, sources as lists of lines.
JUPYTER = """{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# Fine-tuning with mixed precision\\n",
    "Uses `torch.cuda.amp` — déjà vu 🚀"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "a2",
   "metadata": {},
   "outputs": [],
   "source": [
    "%matplotlib inline\\n",
    "import torch"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "a3",
   "metadata": {
    "scrolled": true
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "step 0\\n",
      "with torch.cuda.amp.autocast():\\n"
     ]
    }
   ],
   "source": [
    "for step in range(2):\\n",
    "    with torch.cuda.amp.autocast():\\n",
    "        print(\\"step\\", step, \\"\\\\u00e9\\")"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3 (ipykernel)",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.11.6"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"""

# VS Code: indent 1 as well, cell ids and per-cell metadata, no trailing newline.
VSCODE = """{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "3f1c2a7e",
   "metadata": {},
   "outputs": [],
   "source": [
    "import torch\\n",
    "from torch.utils.data import DataLoader"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "9b0d4c11",
   "metadata": {
    "vscode": {
     "languageId": "python"
    }
   },
   "outputs": [],
   "source": [
    "scaler = torch.cuda.amp.GradScaler()\\n",
    "print(scaler)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "e2e2",
   "metadata": {
    "vscode": {
     "languageId": "sql"
    }
   },
   "outputs": [],
   "source": [
    "SELECT torch.cuda.amp.autocast() FROM t"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": ".venv",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.12.1"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}"""

# Colab: indent 2, nbformat first, metadata.colab, cells last, empty sources as [].
COLAB = """{
  "nbformat": 4,
  "nbformat_minor": 0,
  "metadata": {
    "colab": {
      "provenance": [],
      "gpuType": "T4"
    },
    "kernelspec": {
      "name": "python3",
      "display_name": "Python 3"
    },
    "language_info": {
      "name": "python"
    },
    "accelerator": "GPU"
  },
  "cells": [
    {
      "cell_type": "code",
      "execution_count": null,
      "metadata": {
        "id": "Xq1"
      },
      "outputs": [],
      "source": [
        "!pip install -q transformers\\n",
        "import torch"
      ]
    },
    {
      "cell_type": "code",
      "source": [
        "with torch.cuda.amp.autocast():\\n",
        "  out = torch.ones(2)"
      ],
      "metadata": {
        "id": "Xq2"
      },
      "execution_count": null,
      "outputs": []
    },
    {
      "cell_type": "code",
      "source": [],
      "metadata": {
        "id": "Xq3"
      },
      "execution_count": null,
      "outputs": []
    }
  ]
}
"""

# Source as one string (nbformat allows it; programmatic writers use it).
STRING_SOURCE = ('{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], '
                 '"source": "import torch\\nwith torch.cuda.amp.autocast():\\n    pass\\n"}], '
                 '"metadata": {}, "nbformat": 4, "nbformat_minor": 2}')

CLEAN = JUPYTER.replace('"    with torch.cuda.amp.autocast():', '"    with torch.amp.autocast(\\"cuda\\"):')


class NotebookCheck(Workdir):
    def test_walked_and_reported_per_cell(self):
        self.write("sub/train.ipynb", JUPYTER)
        code, out, _ = self.check("--no-cache", "--output-format", "concise", ".")
        self.assertEqual(code, 1)
        self.assertIn("sub/train.ipynb:cell 3:2:10: PTL101", out)
        self.assertEqual(out.count("PTL101"), 1, out)  # not in the outputs or the markdown

    def test_full_output_shows_the_cell_line(self):
        self.write("train.ipynb", JUPYTER)
        code, out, _ = self.check("--no-cache", "--output-format", "full", ".")
        self.assertIn("train.ipynb:cell 3:2:10: PTL101", out)
        self.assertIn("2 |     with torch.cuda.amp.autocast():", out)

    def test_json_cell_field(self):
        self.write("train.ipynb", JUPYTER)
        self.write("plain.py", "import torch\nwith torch.cuda.amp.autocast():\n    pass\n")
        code, out, _ = self.check("--no-cache", "--output-format", "json", ".")
        rows = {os.path.basename(r["filename"]): r for r in json.loads(out)}
        nb = rows["train.ipynb"]
        self.assertEqual(nb["cell"], 3)
        self.assertEqual(nb["location"], {"row": 2, "column": 10})
        self.assertEqual(nb["end_location"]["row"], 2)
        self.assertEqual(nb["fix"]["edits"][0]["location"]["row"], 2)
        self.assertIsNone(rows["plain.py"]["cell"])

    def test_vscode_cell_language_and_colab(self):
        self.write("vs.ipynb", VSCODE)
        self.write("colab.ipynb", COLAB)
        code, out, _ = self.check("--no-cache", "--output-format", "concise", ".")
        self.assertIn("colab.ipynb:cell 2:1:6: PTL101", out)
        self.assertIn("vs.ipynb:cell 2:1:10: PTL101", out)
        self.assertNotIn("vs.ipynb:cell 3", out)  # an SQL cell is not Python

    def test_other_languages_skipped(self):
        nb = json.loads(JUPYTER)
        nb["metadata"]["kernelspec"]["language"] = "R"
        nb["metadata"]["language_info"]["name"] = "R"
        self.write("r.ipynb", json.dumps(nb))
        code, out, _ = self.check("--no-cache", ".")
        self.assertEqual(code, 0, out)

    def test_turned_off_by_exclude(self):
        self.write("train.ipynb", JUPYTER)
        self.write("ptlint.toml", 'extend-exclude = ["*.ipynb"]\n')
        code, out, _ = self.check("--no-cache", ".")
        self.assertEqual(code, 0, out)
        self.assertIn("All checks passed!", out)

    def test_malformed_notebooks_name_the_file(self):
        self.write("bad_json.ipynb", '{"cells": [')
        self.write("v3.ipynb", '{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}')
        self.write("bad_source.ipynb", '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, '
                                       '"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": 5}]}')
        self.write("list_of_numbers.ipynb", '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, '
                                            '"cells": [{"cell_type": "code", "source": ["a", 1]}]}')
        self.write("not_object.ipynb", '[1, 2]')
        self.write("train.py", "import torch\nwith torch.cuda.amp.autocast():\n    pass\n")
        code, out, err = self.check("--no-cache", "--output-format", "concise", ".")
        self.assertEqual(code, 2)
        self.assertIn("train.py:2:6: PTL101", out)  # every other file still checked
        self.assertIn("error: bad_json.ipynb: not a valid notebook: invalid JSON at line 1, column 12", err)
        self.assertIn("error: v3.ipynb: nbformat 3 notebooks are not supported", err)
        self.assertIn("error: bad_source.ipynb: not a valid notebook: the \"source\" of cell 1 is neither", err)
        self.assertIn("error: list_of_numbers.ipynb: not a valid notebook: the \"source\" of cell 1", err)
        self.assertIn("error: not_object.ipynb: not a valid notebook", err)
        self.assertNotIn("All checks passed", out)

    def test_huge_outputs_refused(self):
        nb = json.loads(JUPYTER)
        nb["cells"][2]["outputs"].append({"output_type": "display_data", "metadata": {},
                                          "data": {"image/png": "iVBORw0KGgo" * (50 * 1024 * 1024 // 11)}})
        self.write("huge.ipynb", json.dumps(nb))
        self.write("train.py", "import torch\nwith torch.cuda.amp.autocast():\n    pass\n")
        code, out, err = self.check("--no-cache", "--output-format", "concise", ".")
        self.assertEqual(code, 2)
        self.assertIn("huge.ipynb", err)
        self.assertIn("train.py:2:6: PTL101", out)

    def test_cache_keeps_cells(self):
        self.write("train.ipynb", JUPYTER)
        first = self.check("--output-format", "json", ".")
        second = self.check("--output-format", "json", ".")
        self.assertTrue(os.path.isdir(os.path.join(self.dir, ".ptlint_cache")))
        self.assertEqual(first, second)
        self.assertEqual(json.loads(second[1])[0]["cell"], 3)

    def test_noqa_and_file_level_noqa(self):
        nb = json.loads(JUPYTER)
        nb["cells"][2]["source"][1] = "    with torch.cuda.amp.autocast():  # noqa: PTL101\n"
        self.write("line.ipynb", json.dumps(nb))
        nb = json.loads(JUPYTER)
        nb["cells"][1]["source"].insert(0, "# ptlint: noqa\n")
        self.write("file.ipynb", json.dumps(nb))
        code, out, _ = self.check("--no-cache", ".")
        self.assertEqual(code, 0, out)


class NotebookFix(Workdir):
    def fix_roundtrip(self, name, text, old_line, new_line):
        self.write(name, text)
        code, out, err = self.check("--no-cache", "--fix", name)
        self.assertEqual(code, 0, out + err)
        fixed = self.read(name, "rb")
        # Only the changed line of the cell's source differs; every other byte is as it was.
        before, found, after = text.encode().rpartition(old_line.encode())  # the source comes after the outputs
        self.assertTrue(found)
        self.assertEqual(fixed, before + new_line.encode() + after)
        json.loads(fixed)

    def test_jupyter(self):
        self.fix_roundtrip("j.ipynb", JUPYTER, '"    with torch.cuda.amp.autocast():\\n"',
                           '"    with torch.amp.autocast(\\"cuda\\"):\\n"')

    def test_vscode(self):
        self.fix_roundtrip("v.ipynb", VSCODE, '"scaler = torch.cuda.amp.GradScaler()\\n"',
                           '"scaler = torch.amp.GradScaler(\\"cuda\\")\\n"')

    def test_colab(self):
        self.fix_roundtrip("c.ipynb", COLAB, '"with torch.cuda.amp.autocast():\\n"',
                           '"with torch.amp.autocast(\\"cuda\\"):\\n"')

    def test_string_source_stays_a_string(self):
        self.fix_roundtrip("s.ipynb", STRING_SOURCE, "with torch.cuda.amp.autocast():",
                           'with torch.amp.autocast(\\"cuda\\"):')

    def test_no_finding_is_byte_identical(self):
        for name, text in (("clean.ipynb", CLEAN), ("colab.ipynb", COLAB.replace("torch.cuda.amp", "torch.amp"))):
            self.write(name, text)
            before = self.read(name, "rb")
            code, out, err = self.check("--no-cache", "--fix", name)
            self.assertEqual(self.read(name, "rb"), before, name)
        self.assertNotEqual(CLEAN, JUPYTER)

    def test_diff_per_cell(self):
        self.write("j.ipynb", JUPYTER)
        code, out, err = self.check("--no-cache", "--diff", "j.ipynb")
        self.assertEqual(code, 1)
        self.assertIn("--- j.ipynb:cell 3\n+++ j.ipynb:cell 3\n", out)
        self.assertIn('-    with torch.cuda.amp.autocast():\n+    with torch.amp.autocast("cuda"):\n', out)
        self.assertNotIn("matplotlib", out)
        self.assertEqual(self.read("j.ipynb"), JUPYTER)

    def test_fix_never_spans_cells(self):
        text = JUPYTER.replace('"import torch"', '"from torch.cuda import amp"').replace(
            '"    with torch.cuda.amp.autocast():', '"    with amp.autocast():')
        self.assertIn('"    with amp.autocast():', text)
        self.assertNotEqual(text, JUPYTER)
        self.write("x.ipynb", text)
        code, out, err = self.check("--no-cache", "--fix", "--output-format", "concise", "x.ipynb")
        self.assertEqual(self.read("x.ipynb"), text)
        self.assertIn("x.ipynb:cell 2:2:1: PTL101", out)
        self.assertNotIn("[*]", out)

    def test_magic_lines_kept_around_a_fix(self):
        nb = json.loads(JUPYTER)
        nb["cells"][2]["source"] = ["!nvidia-smi\n", "with torch.cuda.amp.autocast():\n", "    %time x = 1\n", "files = !ls"]
        text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        self.fix_roundtrip("m.ipynb", text, '"with torch.cuda.amp.autocast():\\n"', '"with torch.amp.autocast(\\"cuda\\"):\\n"')

    def test_add_noqa_writes_into_the_cell(self):
        self.write("j.ipynb", JUPYTER)
        code, out, err = self.check("--no-cache", "--add-noqa", "j.ipynb")
        self.assertEqual(code, 0, err)
        text = self.read("j.ipynb")
        self.assertEqual(text, JUPYTER.replace('"    with torch.cuda.amp.autocast():\\n"',
                                               '"    with torch.cuda.amp.autocast():  # noqa: PTL101\\n"'))
        code, out, err = self.check("--no-cache", "j.ipynb")
        self.assertEqual(code, 0, out + err)

    def test_stdin(self):
        code, out, err = self.check("--no-cache", "--output-format", "concise", "--stdin-filename", "n.ipynb", "-",
                                    stdin=JUPYTER.encode())
        self.assertEqual(code, 1)
        self.assertIn("n.ipynb:cell 3:2:10: PTL101", out)
        code, out, err = self.check("--no-cache", "--fix", "--stdin-filename", "n.ipynb", "-", stdin=JUPYTER.encode())
        self.assertEqual(code, 0, err)
        self.assertEqual(out, JUPYTER.replace('"    with torch.cuda.amp.autocast():', '"    with torch.amp.autocast(\\"cuda\\"):'))
        code, out, err = self.check("--no-cache", "--fix", "--stdin-filename", "n.ipynb", "-", stdin=b'{"nbformat": 3}')
        self.assertEqual(code, 2)
        self.assertEqual(out, '{"nbformat": 3}')
        self.assertIn("n.ipynb: nbformat 3", err)

    def test_bom_kept(self):
        self.write("b.ipynb", "\ufeff" + JUPYTER, "w")
        self.check("--no-cache", "--fix", "b.ipynb")
        data = self.read("b.ipynb", "rb")
        self.assertTrue(data.startswith(b"\xef\xbb\xbf{"))
        self.assertIn(b'torch.amp.autocast(\\"cuda\\")', data)


def notebook(*cells):
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "id": "c%d" % k, "metadata": {},
                                  "outputs": [], "source": source} for k, source in enumerate(cells)],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def sources(text):
    return ["".join(c["source"]) for c in json.loads(text)["cells"]]


class NotebookEdits(Workdir):
    """Fixes and noqa comments give every magic back at its own line, whatever the code around it."""

    def test_magic_stays_at_its_line_when_a_real_line_equals_its_mask(self):
        # A 4-character magic is masked as `pass`: a real `pass` before it at the same indent
        # must not take its place, under --fix and --add-noqa.
        for magic in ("%pdb", "%env", "!pwd", "len?", "%who"):
            cell = ("import torch\ntry:\n    import apex\nexcept ImportError:\n    pass\nif DEBUG:\n    " + magic +
                    "\nwith torch.cuda.amp.autocast():\n    y = 1\n")
            for flag, line in (("--fix", 'with torch.amp.autocast("cuda"):'),
                               ("--add-noqa", "with torch.cuda.amp.autocast():  # noqa: PTL101")):
                self.write("m.ipynb", notebook(cell))
                code, out, err = self.check("--no-cache", flag, "m.ipynb")
                expected = cell.replace("with torch.cuda.amp.autocast():", line)
                self.assertEqual(sources(self.read("m.ipynb")), [expected], (magic, flag, err))

    def test_lines_added_before_a_magic_move_it_with_them(self):
        # The PTL101 fix adds `import torch` with the cell's imports: the masked lines below follow
        # it down, a real `pass` equal to a mask included.
        cell = "from torch import cuda\npass\n%pdb\nwith cuda.amp.autocast():\n    pass\n!ls\n"
        self.write("a.ipynb", notebook(cell))
        code, out, err = self.check("--no-cache", "--fix", "a.ipynb")
        self.assertEqual(sources(self.read("a.ipynb")), [
            'from torch import cuda\nimport torch\npass\n%pdb\nwith torch.amp.autocast("cuda"):\n    pass\n!ls\n'], err)

    def test_other_magics_never_rewritten(self):
        cell = ("%%time\nimport torch\nfiles = !ls\nwith torch.cuda.amp.autocast():\n    pass\n"
                "torch.cuda.amp.GradScaler?\nscaler = torch.cuda.amp.GradScaler()\n!pip install apex\n")
        self.write("o.ipynb", notebook(cell))
        self.check("--no-cache", "--fix", "o.ipynb")
        after = sources(self.read("o.ipynb"))[0]
        for magic in ("%%time\n", "files = !ls\n", "torch.cuda.amp.GradScaler?\n", "!pip install apex\n"):
            self.assertIn(magic, after)
        self.assertIn('scaler = torch.amp.GradScaler("cuda")\n', after)
        self.assertIn('with torch.amp.autocast("cuda"):\n', after)

    def test_half_typed_cell_hides_nothing_after_it(self):
        # Jupyter compiles each cell on its own: an open bracket, string or `\` at the end of one
        # cell must neither swallow the next cells' code nor block their fixes.
        for broken in ("x = foo(\n", "x = 1 + \\\n", 's = """abc\n', "d = {1:\n", "x = 'abc"):
            cells = ["y = 2\n", broken, "import torch\nwith torch.cuda.amp.autocast():\n    pass\n"]
            self.write("h.ipynb", notebook(*cells))
            code, out, err = self.check("--no-cache", "--output-format", "concise", "h.ipynb")
            self.assertIn("h.ipynb:cell 3:2:6: PTL101 [*]", out, (broken, out, err))
            self.check("--no-cache", "--fix", "h.ipynb")
            self.assertEqual(sources(self.read("h.ipynb")), [
                cells[0], cells[1], 'import torch\nwith torch.amp.autocast("cuda"):\n    pass\n'], broken)

    def test_many_fixable_cells_checked_in_linear_time(self):
        # One split of the joined text, then a binary search per fix: 40,000 one-line cells take
        # about what the same lines take in a .py file (quadratic before: tens of seconds).
        cells = ["import torch\n"] + ["torch.cuda.amp.autocast()\n"] * 40000
        self.write("big.ipynb", notebook(*cells))
        self.write("big.py", "".join(cells))
        import time
        start = time.monotonic()
        code, out, err = self.check("--no-cache", "--statistics", "big.ipynb")
        notebook_time = time.monotonic() - start
        self.assertIn("40000", out)
        start = time.monotonic()
        self.check("--no-cache", "--statistics", "big.py")
        file_time = time.monotonic() - start
        self.assertLess(notebook_time, 4 * file_time + 3.0, (notebook_time, file_time))
        # --fix writes 10,000 changed cells back in one pass over the file's bytes.
        cells = cells[:10001]
        self.write("fix.ipynb", notebook(*cells))
        self.write("fix.py", "".join(cells))
        start = time.monotonic()
        self.check("--no-cache", "--fix", "fix.ipynb")
        notebook_time = time.monotonic() - start
        start = time.monotonic()
        self.check("--no-cache", "--fix", "fix.py")
        file_time = time.monotonic() - start
        self.assertEqual(sources(self.read("fix.ipynb"))[1:3], ['torch.amp.autocast("cuda")\n'] * 2)
        self.assertLess(notebook_time, 4 * file_time + 3.0, (notebook_time, file_time))


if __name__ == "__main__":
    unittest.main()
