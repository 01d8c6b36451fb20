"""``python -m tttlab`` runs the ``ttt`` command line."""

if __name__ == "__main__":
    from tttlab._entry import run

    run()
