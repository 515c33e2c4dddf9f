import sys

from dcsim.docgen.render import main

sys.exit(main())
