import sys

from sandbox_forge.cli import main

sys.exit(main())
