"""`python -m dbrepro` is the same as the `dbrepro` console script."""
import sys

from .cli import main

sys.exit(main())
