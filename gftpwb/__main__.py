import sys

from gftpwb.shell.cli.main import main

sys.exit(main())
