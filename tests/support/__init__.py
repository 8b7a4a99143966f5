"""What the tests share and are not tests themselves: helpers, fixtures' building blocks, stand-ins.
A test module imports from here (``from support.clihelp import gftpwb``), never from another test
module; pytest fixtures are in ``conftest.py``."""
