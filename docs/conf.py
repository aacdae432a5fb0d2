"""Sphinx configuration of bdpsim's documentation site.

Built offline, warnings as errors, every cross-reference checked::

    python -m sphinx -W -b html docs docs/_build/html

Why Sphinx: bdpsim's docstrings are numpydoc with equations (rendered by numpydoc + MathJax),
the API reference follows the package by ``autosummary :recursive:``, user pages are Markdown
(MyST), and sphinx-gallery runs the examples at build time, so a broken example fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(ROOT))  # the checkout's bdpsim, also when it is not installed

import bdpsim  # noqa: E402

project = "bdpsim"
author = "the bdpsim developers"
copyright = "2024–2026, the bdpsim developers"
release = bdpsim.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "bdpsim_docs",  # docs/_ext: config-key, column, deviation and CLI reference from the code
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "examples/README.rst",
    "examples/*/README.rst",
    "**/README.md",
    "generated/**",
]  # generated tables: included by the pages that show them
templates_path = ["_templates"]

# ----------------------------------------------------------------------------- references
nitpicky = True  # a reference that does not resolve is a warning, and -W makes it an error
# Only types of other packages are ignored: they cannot resolve offline (intersphinx is off, so the
# build needs no network). Every bdpsim name must resolve; docs/_ext/bdpsim_docs.py resolves the
# short names the docstrings use (ConfigError, MODEL_KINDS) to the one object they mean.
nitpick_ignore_regex = [
    (
        r"py:(class|obj|data|exc)",
        r"(abc|argparse|numpy|np|scipy|pandas|matplotlib|collections\.abc|typing|pathlib|importlib|sys)\..+",
    ),
]

# ----------------------------------------------------------------------------- API (autodoc)
autosummary_generate = True
autosummary_imported_members = False
# undocumented module constants and class attributes are listed too: the docstrings refer to them
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
autodoc_typehints = "none"  # numpydoc writes the types from the docstrings
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# ----------------------------------------------------------------------------- Markdown (MyST)
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# ----------------------------------------------------------------------------- examples
sphinx_gallery_conf = {
    "examples_dirs": str(DOCS / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "show_memory": False,
    "reference_url": {},
    "backreferences_dir": None,
    "copyfile_regex": "",
    "plot_gallery": "True",
}

# ----------------------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = "bdpsim"
html_static_path = ["_static"]
html_css_files = ["bdpsim.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "navbar_align": "left",
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
# the pages of wide tables (config keys, columns, the gallery's deviations) drop the left section
# navigation, giving their columns the width (the page's own contents stay on the right)
html_sidebars = {"reference/config-keys": [], "reference/columns": [], "gallery": []}
# MathJax: shipped in docs/_static/mathjax, no CDN (bdpsim_docs sets mathjax_path): maths shows offline
