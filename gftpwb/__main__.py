import sys

from gftpwb.cli.main import main

sys.exit(main())
