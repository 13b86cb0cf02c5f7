"""Build hook: copy the root templates/ and static/ into the webapp package of a built wheel.

Everything else is declared in pyproject.toml. In a checkout (or an editable install) the app
finds the folders at the repository root; in an installed copy, inside the package.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithAssets(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in ("templates", "static"):
            target = Path(self.build_lib) / "webapp" / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(ROOT / name, target)


setup(cmdclass={"build_py": BuildWithAssets})
