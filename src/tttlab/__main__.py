"""``python -m tttlab`` runs the ``ttt`` command line."""

if __name__ == "__main__":
    import os

    try:
        from tttlab._entry import run
    except KeyboardInterrupt:  # a Ctrl-C this early: the line and the 130 of any other
        os.write(2, b"ttt: interrupted\n")
        os._exit(130)
    run()
