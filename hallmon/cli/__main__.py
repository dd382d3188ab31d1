"""`python -m hallmon.cli ...`: the same as the `hallmon` command."""

from hallmon.cli import app

# Guarded: the verifier's budget processes are spawned, and spawn imports the parent's main
# module again (as __mp_main__); it must not run the command a second time.
if __name__ == "__main__":
    app()
