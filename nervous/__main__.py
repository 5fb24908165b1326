import sys

from .frontends.launch import main

sys.exit(main())
