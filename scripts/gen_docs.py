"""Kept for old habits: ``python scripts/gen_docs.py [...]`` is ``python -m dcsim.docgen [...]``."""

import sys

from dcsim.docgen.render import main

sys.exit(main())
