"""Find the folder that holds the generated ontology configuration (``config/``).

Looked up in this order:

1. ``$LLAMA_INDEX_CRM_CONFIG`` when set (it must then exist);
2. ``llama_index_crm/_config`` inside the installed package (the wheel force-includes
   ``config/`` there);
3. ``<repository>/config`` next to the package (a source checkout).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import CrmError

__all__ = ["CONFIG_ENV_VAR", "REQUIRED_FILES", "ConfigNotFoundError", "find_config_dir"]

CONFIG_ENV_VAR = "LLAMA_INDEX_CRM_CONFIG"
"""Environment variable naming a config folder that overrides the built-in one."""

REQUIRED_FILES: tuple[str, ...] = (
    "aliases.json",
    "categories.json",
    "classes.json",
    "fundamental_relationships.json",
    "properties.json",
    "relationship_weights.json",
)
"""Files that ``scripts/build_ontology.py`` writes and :class:`Ontology` reads."""

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


class ConfigNotFoundError(CrmError, FileNotFoundError):
    """No folder with the ontology configuration files was found."""


def _is_config_dir(path: Path) -> bool:
    return all((path / name).is_file() for name in REQUIRED_FILES)


def find_config_dir() -> Path:
    """The folder holding ``properties.json``, ``fundamental_relationships.json`` etc.

    Raises:
        ConfigNotFoundError: when ``$LLAMA_INDEX_CRM_CONFIG`` names a folder without the
            files, or when neither the packaged nor the repository folder has them.
    """
    override = os.environ.get(CONFIG_ENV_VAR)
    if override:
        path = Path(override).expanduser()
        if not _is_config_dir(path):
            raise ConfigNotFoundError(
                f"${CONFIG_ENV_VAR}={override} does not hold the ontology config files "
                f"{', '.join(REQUIRED_FILES)}; unset it or run scripts/build_ontology.py "
                f"--out {override}")
        return path
    candidates = (_PACKAGE_DIR / "_config", _PACKAGE_DIR.parent / "config")
    for path in candidates:
        if _is_config_dir(path):
            return path
    raise ConfigNotFoundError(
        "ontology config not found in " + " or ".join(str(p) for p in candidates)
        + f"; reinstall llama-index-crm, set ${CONFIG_ENV_VAR}, or run "
        "scripts/build_ontology.py in a source checkout")
