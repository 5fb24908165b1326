import sys

from .frontends.cli import cli

sys.exit(cli())
