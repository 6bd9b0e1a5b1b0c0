"""The example notebooks run from top to bottom without errors."""
from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = sorted(path.name for path in (Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(repo, tmp_path, name):
    notebook = nbformat.read(repo / "notebooks" / name, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert not errors, errors
    # A reader sees the charts: each notebook's figures are inline outputs (no forced Agg backend).
    images = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", [])
              if "image/png" in output.get("data", {})]
    assert images, f"{name} drew no inline figure"
