"""A real JupyterLab (or Jupyter Notebook 7) for the tests: started on a loopback port with empty user
folders, driven by Playwright.

`LabServer` copies the chapters folder to a temporary one (JupyterLab saves what it opens), installs
the course's overrides as `make lab` does, and starts `jupyter lab` (or, with app="notebook",
`jupyter notebook`) with empty Jupyter user folders, as a learner's first run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "attnlib-course-test"
#: the class that configures each app
APP_CLASS = {"lab": "LabApp", "notebook": "JupyterNotebookApp"}


class LabServer:
    """`jupyter lab` on 127.0.0.1, serving a copy of chapters/ from `folder`."""

    def __init__(self, folder: Path, notebooks: list[str], source: Path = ROOT, app: str = "lab"):
        """`source`: the course folder whose chapters and attnlib are served (another checkout, to
        watch a check fail on older notebooks); `app`: "lab" or "notebook" (Notebook 7)."""
        self.app = app
        self.folder = folder
        self.chapters = folder / "chapters"
        self.chapters.mkdir(parents=True)
        shutil.copytree(source / "chapters" / "data", self.chapters / "data")
        for name in notebooks:
            shutil.copy(source / "chapters" / name, self.chapters / name)
        home = folder / "home"
        settings = folder / "app-settings"
        settings.mkdir()
        shutil.copy(ROOT / "tools" / "jupyterlab-overrides.json", settings / "overrides.json")
        env = {
            **os.environ,
            "PYTHONPATH": str(source),
            "ATTNLIB_PROGRESS": str(folder / "progress.json"),
            "HOME": str(home),
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_DATA_DIR": str(home / "data"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(home / "lab-settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        }
        # every cell drawn at once (a learner's Lab draws them as they scroll; the cells are the same)
        tracker = home / "lab-settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
        tracker.parent.mkdir(parents=True)
        tracker.write_text(json.dumps({"windowingMode": "none"}))
        jupyter = Path(sys.executable).with_name("jupyter")
        self.log = open(folder / "lab.log", "w")  # noqa: SIM115 (open as long as the server runs; closed by close())
        self.process = subprocess.Popen(
            [
                str(jupyter),
                app,
                "--no-browser",
                "--ip=127.0.0.1",
                "--port=0",
                f"--IdentityProvider.token={TOKEN}",
                f"--{APP_CLASS[app]}.app_settings_dir={settings}",
                f"--{APP_CLASS[app]}.expose_app_in_browser=True",
                *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
                str(self.chapters),
            ],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=self.chapters,
        )
        self.url = self._wait_for_url(home / "runtime")

    def _wait_for_url(self, runtime: Path, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited: {(self.folder / 'lab.log').read_text()[-2000:]}")
            for info in runtime.glob("jpserver-*.json"):
                try:
                    url = json.loads(info.read_text())["url"].rstrip("/")
                    urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=5)
                    return url
                except (OSError, ValueError, KeyError):
                    pass
            time.sleep(0.3)
        raise RuntimeError("jupyter lab did not start in time")

    def notebook_url(self, name: str) -> str:
        if self.app == "notebook":
            return f"{self.url}/notebooks/{name}?token={TOKEN}"
        return f"{self.url}/lab/tree/{name}?token={TOKEN}&reset"

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
