"""pre-commit's `language: python` installs this repository with `pip install .`: the only thing
it installs is the `ptlint` wheel of the same version (scripts/build_wheel.sh builds it), whose
executable then runs the hooks. No Python code; the version is CMake's project version."""
import pathlib
import re

from setuptools import setup

root = pathlib.Path(__file__).resolve().parent
version = re.search(r"^project\(ptlint VERSION ([0-9.]+)", (root / "CMakeLists.txt").read_text(), re.M).group(1)

setup(
    name="ptlint-pre-commit",
    version=version,
    description="pre-commit hooks for ptlint: installs the ptlint wheel of the same version",
    license="Apache-2.0",
    install_requires=[f"ptlint=={version}"],
    packages=[],
    py_modules=[],
)
